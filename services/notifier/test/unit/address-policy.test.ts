import { EndpointAllowlist, forbiddenAddress, isPublicAddress } from '../../src/domain/address-policy';

describe('SSRF address policy', () => {
  it('refuses loopback, private, link-local, CGNAT, reserved and multicast addresses', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'ff02::1',
    ]) {
      expect([a, isPublicAddress(a)]).toEqual([a, false]);
    }
  });

  it('refuses what the registry refuses (issue 19 item 4: the send-time copy had treated these as public)', () => {
    for (const a of [
      '::ffff:7f00:1',
      '::ffff:a9fe:a9fe',
      '::7f00:1',
      'fec0::1',
      '3fff::1',
      '4000::1',
      '2002:a00:1::1',
    ]) {
      expect([a, isPublicAddress(a)]).toEqual([a, false]);
    }
  });

  it('accepts public unicast addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect([a, isPublicAddress(a)]).toEqual([a, true]);
    }
  });

  it('lets the development allowlist name hosts, addresses and CIDR ranges', () => {
    const allow = EndpointAllowlist.parse('127.0.0.1, localhost, 10.0.0.0/8');
    expect(forbiddenAddress('localhost', ['127.0.0.1', '::1'], allow)).toBeUndefined();
    expect(forbiddenAddress('crm.internal', ['10.2.3.4'], allow)).toBeUndefined();
    expect(forbiddenAddress('crm.internal', ['192.168.0.1'], allow)).toBe('192.168.0.1');
    expect(forbiddenAddress('crm.example.com', ['8.8.8.8', '127.0.0.2'], allow)).toBe('127.0.0.2');
    expect(forbiddenAddress('crm.example.com', ['8.8.8.8'], EndpointAllowlist.parse(''))).toBeUndefined();
    expect(forbiddenAddress('localhost', ['127.0.0.1'], EndpointAllowlist.parse(''))).toBe('127.0.0.1');
  });

  it('rejects malformed allowlist entries', () => {
    expect(() => EndpointAllowlist.parse('10.0.0.0/40')).toThrow(/invalid prefix length/);
    expect(() => EndpointAllowlist.parse('http://x')).toThrow(/neither/);
  });
});
