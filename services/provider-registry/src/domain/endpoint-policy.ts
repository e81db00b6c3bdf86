import { isIP } from 'node:net';
import type { AppError } from '@cc/kit/errors';
import { type AddressVerdict, classifyAddress, EndpointAllowlist } from '@cc/kit/network-policy';
import { providerError } from './errors';

/** Why a host could not be resolved; thrown by a {@link ResolveHost} implementation. */
export class HostResolutionError extends Error {
  constructor(
    readonly reason: 'not-found' | 'timeout' | 'unavailable',
    message: string,
  ) {
    super(message);
    this.name = 'HostResolutionError';
  }
}

/** Resolves a host name to every address it has (A and AAAA); throws {@link HostResolutionError}. */
export type ResolveHost = (host: string) => Promise<string[]>;

export type { AddressVerdict };

/** The development allowlist (`ENDPOINT_ALLOWLIST`, development only): one parser, in libs/kit. */
export { EndpointAllowlist };

/** The suite's one network policy (libs/kit), shared with the notifier's send-time check. */
export { classifyAddress };

const notAllowed = (message: string): AppError =>
  providerError('PROVIDER.ENDPOINT_NOT_ALLOWED', message, [{ pointer: '/endpoint', message }]);

const publicOnly = 'notifications are sent only to public internet addresses';

/** Longest DNS name in its text form, without the trailing dot (RFC 1035 §2.3.4: 255 octets on the wire). */
const maxNameLength = 253;
/** Longest DNS label (RFC 1035 §2.3.4). */
const maxLabelLength = 63;

/**
 * Why a host name (no trailing dot) is not a DNS name at all, or undefined: longer than 253 characters, a label
 * longer than 63, or an empty label. getaddrinfo refuses some of these without asking DNS (EINVAL), which is a
 * fault of the endpoint, not of DNS; the message shows at most the first 64 characters of the name.
 */
export function dnsNameProblem(host: string): string | undefined {
  if (!host) return 'name is empty';
  const shown = host.length > 64 ? `${host.slice(0, 64)}... (${host.length} characters)` : host;
  if (host.length > maxNameLength) return `name ${shown} is longer than ${maxNameLength} characters`;
  const labels = host.split('.');
  if (labels.some((l) => l.length === 0)) return `name ${shown} has an empty label`;
  const long = labels.find((l) => l.length > maxLabelLength);
  if (long) return `name ${shown} has a label longer than ${maxLabelLength} characters`;
  return undefined;
}

/**
 * Checks that an endpoint is an https URL without credentials whose host is, or resolves only to, public
 * addresses (SSRF protection); hosts and ranges of the allowlist pass. Throws a coded {@link AppError}:
 * `PROVIDER.ENDPOINT_NOT_ALLOWED` (400), `PROVIDER.ENDPOINT_UNRESOLVABLE` (400) or `PROVIDER.DNS_UNAVAILABLE` (503).
 * Returns the addresses checked. Redirects are not followed by the notifier, so only this host matters.
 */
export async function checkEndpoint(
  endpoint: string,
  opts: { allowlist: EndpointAllowlist; resolve: ResolveHost },
): Promise<string[]> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw notAllowed('endpoint must be an absolute https URL');
  }
  if (url.protocol !== 'https:') throw notAllowed(`endpoint must use https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) {
    throw notAllowed(
      'endpoint must not contain credentials (user:password@); register them as an Authorization header',
    );
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const bareHost = host.replace(/\.$/, '');
  if (!host) throw notAllowed('endpoint must name a host');
  if (opts.allowlist.allowsHost(bareHost)) return [];
  if (isIP(host)) {
    if (opts.allowlist.allowsAddress(host)) return [host];
    const verdict = classifyAddress(host);
    if (!verdict.public) throw notAllowed(`endpoint host ${host} is ${verdict.kind}; ${publicOnly}`);
    return [host];
  }
  const invalid = dnsNameProblem(bareHost);
  if (invalid) {
    const message = `endpoint host ${invalid}; it cannot be resolved`;
    throw providerError('PROVIDER.ENDPOINT_UNRESOLVABLE', message, [{ pointer: '/endpoint', message }]);
  }
  let addresses: string[];
  try {
    addresses = await opts.resolve(host);
  } catch (err) {
    if (!(err instanceof HostResolutionError)) throw err;
    if (err.reason === 'not-found') {
      const message = `endpoint host ${host} does not resolve to any address`;
      throw providerError('PROVIDER.ENDPOINT_UNRESOLVABLE', message, [{ pointer: '/endpoint', message }]);
    }
    throw providerError(
      'PROVIDER.DNS_UNAVAILABLE',
      `endpoint host ${host} could not be resolved now (${err.message}); try again later`,
    );
  }
  if (addresses.length === 0) {
    const message = `endpoint host ${host} does not resolve to any address`;
    throw providerError('PROVIDER.ENDPOINT_UNRESOLVABLE', message, [{ pointer: '/endpoint', message }]);
  }
  for (const address of addresses) {
    if (opts.allowlist.allowsAddress(address)) continue;
    const verdict = classifyAddress(address);
    if (!verdict.public)
      throw notAllowed(`endpoint host ${host} resolves to ${address}, ${verdict.kind}; ${publicOnly}`);
  }
  return addresses;
}
