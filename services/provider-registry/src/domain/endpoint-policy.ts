import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';
import { AppError } from '@cc/kit';
import './errors';

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

/** The verdict on one address: public, or the kind of non-public address it is. */
export type AddressVerdict = { public: true } | { public: false; kind: string };

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

function rangeList(family: 'ipv4' | 'ipv6', cidrs: [string, string][]): { kind: string; list: BlockList }[] {
  return cidrs.map(([cidr, kind]) => {
    const list = new BlockList();
    const [addr, bits] = cidr.split('/');
    list.addSubnet(addr as string, Number(bits), family);
    return { kind, list };
  });
}

// IANA special-purpose registries (RFC 6890 and successors): nothing here is a public internet host.
const ipv4Special = rangeList('ipv4', [
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private address'],
  ['100.64.0.0/10', 'a shared (carrier-grade NAT) address'],
  ['127.0.0.0/8', 'a loopback address'],
  ['169.254.0.0/16', 'a link-local address (the range of cloud metadata services)'],
  ['172.16.0.0/12', 'a private address'],
  ['192.0.0.0/24', 'an IETF protocol-assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a reserved (6to4 relay) address'],
  ['192.168.0.0/16', 'a private address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved or broadcast address'],
]);

const ipv6Special = rangeList('ipv6', [
  ['::/128', 'an unspecified address'],
  ['::1/128', 'a loopback address'],
  ['::/96', 'a deprecated IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/23', 'an IETF protocol-assignment address (including Teredo)'],
  ['2001:db8::/32', 'a documentation address'],
  ['3fff::/20', 'a documentation address'],
  ['fc00::/7', 'a unique-local address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);

const globalUnicast = rangeList('ipv6', [['2000::/3', 'global unicast']])[0]?.list as BlockList;

/** The eight 16-bit groups of a valid IPv6 address (zone removed, embedded dotted IPv4 allowed). */
function ipv6Groups(ip: string): number[] {
  let s = ip.toLowerCase();
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail === undefined ? [] : tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((g) => Number.parseInt(g, 16));
}

const v4FromGroups = (hi: number, lo: number): string => [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');

/**
 * Classifies an IP address: public internet unicast, or which kind of non-public address it is (loopback,
 * private, link-local incl. 169.254.169.254, CGNAT, unique-local, multicast, unspecified, documentation, …).
 * IPv6 forms that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are judged by the embedded address.
 */
export function classifyAddress(address: string): AddressVerdict {
  const ip = address.replace(/%.*$/, '');
  if (isIPv4(ip)) {
    const hit = ipv4Special.find((r) => r.list.check(ip, 'ipv4'));
    return hit ? { public: false, kind: hit.kind } : { public: true };
  }
  if (!isIPv6(ip)) return { public: false, kind: 'not an IP address' };
  const g = ipv6Groups(ip);
  const embedded = (v4: string, form: string): AddressVerdict => {
    const inner = classifyAddress(v4);
    return inner.public ? inner : { public: false, kind: `${form} of ${inner.kind} (${v4})` };
  };
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return embedded(v4FromGroups(g[6] as number, g[7] as number), 'the IPv4-mapped form');
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return embedded(v4FromGroups(g[6] as number, g[7] as number), 'the NAT64 form');
  }
  if (g[0] === 0x2002) return embedded(v4FromGroups(g[1] as number, g[2] as number), 'the 6to4 form');
  const hit = ipv6Special.find((r) => r.list.check(ip, 'ipv6'));
  if (hit) return { public: false, kind: hit.kind };
  return globalUnicast.check(ip, 'ipv6') ? { public: true } : { public: false, kind: 'a reserved address' };
}

function allowed(address: string, allowlist: EndpointAllowlist): boolean {
  const ip = address.replace(/%.*$/, '');
  return allowlist.ranges.check(ip, isIPv4(ip) ? 'ipv4' : 'ipv6');
}

const notAllowed = (message: string): AppError =>
  new AppError('PROVIDER.ENDPOINT_NOT_ALLOWED', message, [{ pointer: '/endpoint', message }]);

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
      throw new AppError('PROVIDER.ENDPOINT_UNRESOLVABLE', message, [{ pointer: '/endpoint', message }]);
    }
    throw new AppError(
      'PROVIDER.DNS_UNAVAILABLE',
      `endpoint host ${host} could not be resolved now (${err.message}); try again later`,
    );
  }
  if (addresses.length === 0) {
    const message = `endpoint host ${host} does not resolve to any address`;
    throw new AppError('PROVIDER.ENDPOINT_UNRESOLVABLE', message, [{ pointer: '/endpoint', message }]);
  }
  for (const address of addresses) {
    if (allowed(address, opts.allowlist)) continue;
    const verdict = classifyAddress(address);
    if (!verdict.public)
      throw notAllowed(`endpoint host ${host} resolves to ${address}, ${verdict.kind}; ${publicOnly}`);
  }
  return addresses;
}
