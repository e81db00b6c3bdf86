import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';
import { type AddressVerdict, type AppError, classifyAddress } from '@cc/kit';
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

/** Hosts and address ranges an operator allows despite the public-address rule (development only). */
export interface EndpointAllowlist {
  /** Host names, lower-case, without a trailing dot. */
  hosts: ReadonlySet<string>;
  /** Addresses and CIDR ranges. */
  ranges: BlockList;
  /** The entries as configured, for the start-up log. */
  entries: readonly string[];
}

export type { AddressVerdict };

const hostName = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Parses `ENDPOINT_ALLOWLIST`: comma-separated host names, IP addresses or CIDR ranges, e.g.
 * `127.0.0.1,localhost,10.0.0.0/8,::1`. Throws naming the first malformed entry.
 */
export function parseAllowlist(spec: string): EndpointAllowlist {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  const entries: string[] = [];
  for (const raw of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const entry = raw.replace(/^\[(.*)\]$/, '$1');
    const [addr = '', bits, extra] = entry.split('/');
    const family = isIPv4(addr) ? 'ipv4' : isIPv6(addr) ? 'ipv6' : undefined;
    if (family && extra === undefined) {
      if (bits === undefined) ranges.addAddress(addr, family);
      else {
        const prefix = Number(bits);
        if (!/^\d{1,3}$/.test(bits) || prefix > (family === 'ipv4' ? 32 : 128)) {
          throw new Error(`ENDPOINT_ALLOWLIST entry ${raw} has an invalid prefix length`);
        }
        ranges.addSubnet(addr, prefix, family);
      }
    } else if (bits === undefined && hostName.test(entry.toLowerCase().replace(/\.$/, ''))) {
      hosts.add(entry.toLowerCase().replace(/\.$/, ''));
    } else {
      throw new Error(`ENDPOINT_ALLOWLIST entry ${raw} is neither a host name, an IP address nor a CIDR range`);
    }
    entries.push(raw);
  }
  return { hosts, ranges, entries };
}

/** The suite's one network policy (libs/kit), shared with the notifier's send-time check. */
export { classifyAddress };

function allowed(address: string, allowlist: EndpointAllowlist): boolean {
  const ip = address.replace(/%.*$/, '');
  return allowlist.ranges.check(ip, isIPv4(ip) ? 'ipv4' : 'ipv6');
}

const notAllowed = (message: string): AppError =>
  providerError('PROVIDER.ENDPOINT_NOT_ALLOWED', message, [{ pointer: '/endpoint', message }]);

const publicOnly = 'notifications are sent only to public internet addresses';

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
  if (opts.allowlist.hosts.has(bareHost)) return [];
  if (isIP(host)) {
    if (allowed(host, opts.allowlist)) return [host];
    const verdict = classifyAddress(host);
    if (!verdict.public) throw notAllowed(`endpoint host ${host} is ${verdict.kind}; ${publicOnly}`);
    return [host];
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
    if (allowed(address, opts.allowlist)) continue;
    const verdict = classifyAddress(address);
    if (!verdict.public)
      throw notAllowed(`endpoint host ${host} resolves to ${address}, ${verdict.kind}; ${publicOnly}`);
  }
  return addresses;
}
