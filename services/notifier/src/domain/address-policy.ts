import { BlockList, isIP } from 'node:net';
import { isPublicAddress } from '@cc/kit/network-policy';

/** The IPv4 address embedded in an IPv4-mapped (`::ffff:a.b.c.d`) IPv6 address, if it is one. */
function mappedV4(address: string): string | undefined {
  const match = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return match?.[1];
}

/** The suite's one network policy (libs/kit), shared with the provider registry's registration check. */
export { isPublicAddress };

/**
 * The development allowlist (`ENDPOINT_ALLOWLIST`): comma-separated host names (exact, case-insensitive),
 * IP addresses and CIDR ranges whose endpoints may resolve to non-public addresses.
 */
export class EndpointAllowlist {
  private readonly hosts = new Set<string>();
  private readonly rangesV4 = new BlockList();
  private readonly rangesV6 = new BlockList();
  private empty = true;

  constructor(spec: string) {
    for (const entry of spec
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean)) {
      this.empty = false;
      const [net, prefixText] = entry.split('/');
      const family = isIP(net ?? '');
      if (family && prefixText !== undefined) {
        const prefix = Number(prefixText);
        const max = family === 4 ? 32 : 128;
        if (!/^\d{1,3}$/.test(prefixText) || prefix > max) throw new Error(`ENDPOINT_ALLOWLIST: bad CIDR '${entry}'`);
        if (family === 4) this.rangesV4.addSubnet(net as string, prefix, 'ipv4');
        else this.rangesV6.addSubnet(net as string, prefix, 'ipv6');
      } else if (family === 4) {
        this.rangesV4.addAddress(entry, 'ipv4');
      } else if (family === 6) {
        this.rangesV6.addAddress(entry, 'ipv6');
      } else if (/^[a-z0-9.-]{1,253}$/.test(entry)) {
        this.hosts.add(entry);
      } else {
        throw new Error(`ENDPOINT_ALLOWLIST: '${entry}' is neither a host name, an IP address nor a CIDR range`);
      }
    }
  }

  /** True when the allowlist names the host itself. */
  allowsHost(host: string): boolean {
    return !this.empty && this.hosts.has(host.toLowerCase().replace(/^\[|\]$/g, ''));
  }

  /** True when the allowlist covers the address. */
  allowsAddress(address: string): boolean {
    if (this.empty) return false;
    const family = isIP(address);
    if (family === 0) return false;
    const v4 = family === 4 ? address : mappedV4(address);
    if (v4) return this.rangesV4.check(v4, 'ipv4');
    return this.rangesV6.check(address, 'ipv6');
  }
}

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
