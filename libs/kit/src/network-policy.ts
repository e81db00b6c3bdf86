import { BlockList, isIP, isIPv4, isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The verdict on one address: public internet unicast, or the kind of non-public address it is. */
export type AddressVerdict = { public: true } | { public: false; kind: string };

/** One special-purpose block: its CIDR, what it is, and whether an IPv4 address embedded in it decides instead. */
export interface SpecialRange {
  cidr: string;
  kind: string;
  /** Where the embedded IPv4 address sits (IPv4-mapped and NAT64 forms are judged by it). */
  embedsIPv4?: 'last32';
}

/**
 * The IANA IPv4 Special-Purpose Address Registry (RFC 6890 and successors, as of 2025), plus multicast. A provider
 * endpoint has no business in any of them, so every block is refused, including the few marked globally reachable
 * (anycast relays such as AS112 or AMT): none is a webhook receiver. More specific blocks come first so the message
 * names them.
 */
export const ipv4SpecialRanges: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/32', kind: 'an unspecified ("this host") address' },
  { cidr: '0.0.0.0/8', kind: 'an unspecified ("this network") address' },
  { cidr: '10.0.0.0/8', kind: 'a private address' },
  { cidr: '100.64.0.0/10', kind: 'a shared (carrier-grade NAT) address' },
  { cidr: '127.0.0.0/8', kind: 'a loopback address' },
  { cidr: '169.254.0.0/16', kind: 'a link-local address (the range of cloud metadata services)' },
  { cidr: '172.16.0.0/12', kind: 'a private address' },
  { cidr: '192.0.0.0/29', kind: 'an IPv4 service continuity address' },
  { cidr: '192.0.0.8/32', kind: 'the IPv4 dummy address' },
  { cidr: '192.0.0.9/32', kind: 'a port control protocol anycast address' },
  { cidr: '192.0.0.10/32', kind: 'a TURN anycast address' },
  { cidr: '192.0.0.170/31', kind: 'a NAT64/DNS64 discovery address' },
  { cidr: '192.0.0.0/24', kind: 'an IETF protocol-assignment address' },
  { cidr: '192.0.2.0/24', kind: 'a documentation address' },
  { cidr: '192.31.196.0/24', kind: 'an AS112 anycast address' },
  { cidr: '192.52.193.0/24', kind: 'an AMT anycast address' },
  { cidr: '192.88.99.0/24', kind: 'a reserved (6to4 relay) address' },
  { cidr: '192.168.0.0/16', kind: 'a private address' },
  { cidr: '192.175.48.0/24', kind: 'an AS112 direct-delegation address' },
  { cidr: '198.18.0.0/15', kind: 'a benchmarking address' },
  { cidr: '198.51.100.0/24', kind: 'a documentation address' },
  { cidr: '203.0.113.0/24', kind: 'a documentation address' },
  { cidr: '224.0.0.0/4', kind: 'a multicast address' },
  { cidr: '255.255.255.255/32', kind: 'a reserved or broadcast address' },
  { cidr: '240.0.0.0/4', kind: 'a reserved or broadcast address' },
];

/**
 * The IANA IPv6 Special-Purpose Address Registry, plus deprecated and reserved blocks that are not public: the
 * IPv4-compatible and IPv4-translated forms, site-local `fec0::/10`, multicast, the whole of 6to4 (deprecated by
 * RFC 7526: a relay would carry the packet to the embedded, possibly private, IPv4 address) and Teredo. Anything
 * outside global unicast `2000::/3` is refused as reserved.
 */
export const ipv6SpecialRanges: readonly SpecialRange[] = [
  { cidr: '::/128', kind: 'an unspecified address' },
  { cidr: '::1/128', kind: 'a loopback address' },
  { cidr: '::ffff:0:0/96', kind: 'the IPv4-mapped form', embedsIPv4: 'last32' },
  { cidr: '::ffff:0:0:0/96', kind: 'a deprecated IPv4-translated address' },
  { cidr: '::/96', kind: 'a deprecated IPv4-compatible address' },
  { cidr: '64:ff9b::/96', kind: 'the NAT64 form', embedsIPv4: 'last32' },
  { cidr: '64:ff9b:1::/48', kind: 'a local-use NAT64 address' },
  { cidr: '100::/64', kind: 'a discard-only address' },
  { cidr: '100:0:0:1::/64', kind: 'a dummy IPv6 prefix address' },
  { cidr: '2001::/32', kind: 'a Teredo address' },
  { cidr: '2001:2::/48', kind: 'a benchmarking address' },
  { cidr: '2001:db8::/32', kind: 'a documentation address' },
  { cidr: '2001::/23', kind: 'an IETF protocol-assignment address' },
  { cidr: '2002::/16', kind: 'a deprecated 6to4 address' },
  { cidr: '2620:4f:8000::/48', kind: 'an AS112 direct-delegation address' },
  { cidr: '3fff::/20', kind: 'a documentation address' },
  { cidr: '5f00::/16', kind: 'a segment-routing (SRv6) SID' },
  { cidr: 'fc00::/7', kind: 'a unique-local address' },
  { cidr: 'fe80::/10', kind: 'a link-local address' },
  { cidr: 'fec0::/10', kind: 'a deprecated site-local address' },
  { cidr: 'ff00::/8', kind: 'a multicast address' },
];

type Parsed = [ipaddr.IPv4 | ipaddr.IPv6, number];
const compile = (ranges: readonly SpecialRange[]) =>
  ranges.map((r) => ({ ...r, range: ipaddr.parseCIDR(r.cidr) as Parsed }));
const v4Ranges = compile(ipv4SpecialRanges);
const v6Ranges = compile(ipv6SpecialRanges);
const globalUnicast = ipaddr.parseCIDR('2000::/3') as Parsed;

/**
 * Classifies an IP address: public internet unicast, or which special-purpose block it is in. IPv6 forms embedding
 * an IPv4 address (IPv4-mapped, NAT64) are judged by the embedded address; a zone (`%eth0`) is ignored. Anything
 * that is not an IP address in canonical notation (Node's `isIP`: no octal or hex IPv4 parts) is not public.
 */
export function classifyAddress(address: string): AddressVerdict {
  const ip = address.replace(/%.*$/, '');
  const family = isIP(ip);
  if (family === 0) return { public: false, kind: 'not an IP address' };
  const parsed = ipaddr.parse(family === 6 ? dottedTailToHex(ip) : ip);
  if (family === 4) {
    const hit = v4Ranges.find((r) => (parsed as ipaddr.IPv4).match(r.range as [ipaddr.IPv4, number]));
    return hit ? { public: false, kind: hit.kind } : { public: true };
  }
  const v6 = parsed as ipaddr.IPv6;
  const hit = v6Ranges.find((r) => v6.match(r.range as [ipaddr.IPv6, number]));
  if (hit?.embedsIPv4) {
    const bytes = v6.toByteArray().slice(12);
    const v4 = bytes.join('.');
    const inner = classifyAddress(v4);
    return inner.public ? inner : { public: false, kind: `${hit.kind} of ${inner.kind} (${v4})` };
  }
  if (hit) return { public: false, kind: hit.kind };
  return v6.match(globalUnicast as [ipaddr.IPv6, number])
    ? { public: true }
    : { public: false, kind: 'a reserved address' };
}

/**
 * `::a.b.c.d` with the IPv4 part as two hex groups: ipaddr.js reads every dotted tail as IPv4-mapped, which would turn
 * the deprecated IPv4-compatible `::10.0.0.1` into `::ffff:10.0.0.1`.
 */
function dottedTailToHex(ip: string): string {
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!dotted) return ip;
  const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
  return `${ip.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

/** True when an IP address is public internet unicast (see {@link classifyAddress}). */
export function isPublicAddress(address: string): boolean {
  return classifyAddress(address).public;
}

const allowlistHostName =
  /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) carries, judged by IPv4 ranges. */
function mappedV4(address: string): string | undefined {
  return /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
}

/**
 * The development allowlist (`ENDPOINT_ALLOWLIST`): host names (exact, case-insensitive, trailing dot ignored),
 * IP addresses and CIDR ranges whose endpoints may be non-public. One parser for the registry (at
 * registration) and the notifier (at every send).
 */
export class EndpointAllowlist {
  private constructor(
    private readonly hosts: ReadonlySet<string>,
    private readonly ranges: BlockList,
    /** The entries as configured, for the start-up log. */
    readonly entries: readonly string[],
  ) {}

  /**
   * Parses comma-separated entries, e.g. `127.0.0.1,localhost,10.0.0.0/8,[::1]`; throws naming the first
   * malformed entry.
   */
  static parse(spec: string): EndpointAllowlist {
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
      const host = entry.toLowerCase().replace(/\.$/, '');
      if (family && extra === undefined) {
        if (bits === undefined) ranges.addAddress(addr, family);
        else {
          const prefix = Number(bits);
          if (!/^\d{1,3}$/.test(bits) || prefix > (family === 'ipv4' ? 32 : 128))
            throw new Error(`ENDPOINT_ALLOWLIST entry ${raw} has an invalid prefix length`);
          ranges.addSubnet(addr, prefix, family);
        }
      } else if (bits === undefined && allowlistHostName.test(host)) {
        hosts.add(host);
      } else {
        throw new Error(`ENDPOINT_ALLOWLIST entry ${raw} is neither a host name, an IP address nor a CIDR range`);
      }
      entries.push(raw);
    }
    return new EndpointAllowlist(hosts, ranges, entries);
  }

  /** True when the allowlist names the host itself (brackets of an IPv6 literal and a trailing dot ignored). */
  allowsHost(host: string): boolean {
    return this.hosts.has(
      host
        .toLowerCase()
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.$/, ''),
    );
  }

  /** True when the allowlist covers the address (a zone id ignored; IPv4-mapped judged as IPv4). */
  allowsAddress(address: string): boolean {
    const ip = address.replace(/%.*$/, '');
    const family = isIP(ip);
    if (family === 0) return false;
    const v4 = family === 4 ? ip : mappedV4(ip);
    return v4 ? this.ranges.check(v4, 'ipv4') : this.ranges.check(ip, 'ipv6');
  }
}
