import { EndpointAllowlist, isPublicAddress } from '@cc/kit/network-policy';

/** The suite's one network policy and allowlist parser (libs/kit), shared with the provider registry. */
export { EndpointAllowlist, isPublicAddress };

/**
 * The SSRF rule at send time: every address the endpoint host resolves to must be public, unless the
 * host name or the address is allowlisted. Returns the offending address, or undefined when allowed.
 */
export function forbiddenAddress(
  host: string,
  addresses: readonly string[],
  allowlist: EndpointAllowlist,
): string | undefined {
  if (allowlist.allowsHost(host)) return undefined;
  if (addresses.length === 0) return '(no address)';
  return addresses.find((a) => !isPublicAddress(a) && !allowlist.allowsAddress(a));
}
