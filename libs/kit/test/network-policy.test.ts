import ipaddr from 'ipaddr.js';
import { classifyAddress, ipv4SpecialRanges, ipv6SpecialRanges, isPublicAddress } from '../src/network-policy';

/** The first, a middle and the last address of a block (IPv4-mapped and NAT64 blocks are judged by what they embed). */
function samples(cidr: string): string[] {
  const [base, bits] = ipaddr.parseCIDR(cidr);
  const bytes = base.toByteArray();
  const first = ipaddr.fromByteArray(bytes).toString();
  const last = bytes.map((b, i) => {
    const hostBits = Math.max(0, Math.min(8, (i + 1) * 8 - bits));
    return b | ((1 << hostBits) - 1);
  });
  const middle = [...bytes];
  const byteIndex = Math.min(bytes.length - 1, Math.floor(bits / 8));
  if (bits < bytes.length * 8) middle[byteIndex] = (middle[byteIndex] ?? 0) | (1 << (7 - (bits % 8)) || 1);
  return [...new Set([first, ipaddr.fromByteArray(middle).toString(), ipaddr.fromByteArray(last).toString()])];
}

// One table of every IANA special-purpose block (plus multicast, deprecated and reserved ones): the same policy
// decides at registration (provider-registry) and at send time (notifier), so the two can no longer disagree.
describe('network policy: every special-purpose range is not public', () => {
  const rows = [...ipv4SpecialRanges, ...ipv6SpecialRanges]
    .filter((r) => !r.embedsIPv4)
    .flatMap((r) => samples(r.cidr).map((ip) => [r.cidr, ip] as const));
  it.each(rows)('%s: %s', (_cidr, ip) => {
    expect(classifyAddress(ip).public).toBe(false);
  });
});

describe('network policy: the review findings and the embedded IPv4 forms', () => {
  it.each([
    // Found public by the notifier's old hand-written copy, refused by the registry's: now one answer.
    ['::ffff:7f00:1', 'the IPv4-mapped form of a loopback address (127.0.0.1)'],
    [
      '::ffff:a9fe:a9fe',
      'the IPv4-mapped form of a link-local address (the range of cloud metadata services) (169.254.169.254)',
    ],
    ['::7f00:1', 'a deprecated IPv4-compatible address'],
    ['fec0::1', 'a deprecated site-local address'],
    ['3fff::1', 'a documentation address'],
    ['2002:0a00:0001::1', 'a deprecated 6to4 address'],
    ['2002:0808:0808::1', 'a deprecated 6to4 address'],
    ['4000::1', 'a reserved address'],
    ['1000::1', 'a reserved address'],
    ['::ffff:10.1.2.3', 'the IPv4-mapped form of a private address (10.1.2.3)'],
    ['64:ff9b::192.168.0.1', 'the NAT64 form of a private address (192.168.0.1)'],
    ['2001:0:4136:e378::1', 'a Teredo address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['0177.0.0.1', 'not an IP address'],
    ['0x7f.1', 'not an IP address'],
    ['example.com', 'not an IP address'],
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toEqual({ public: false, kind });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '192.0.1.1',
    '223.255.255.254',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toEqual({ public: true });
    expect(isPublicAddress(ip)).toBe(true);
  });
});
