import { AppError } from '@cc/kit';
import {
  checkEndpoint,
  classifyAddress,
  EndpointAllowlist,
  HostResolutionError,
  type ResolveHost,
} from '../../src/domain/endpoint-policy';

const none = EndpointAllowlist.parse('');
/** A resolver answering from a fixed table, as DNS would (no network in unit tests). */
const table =
  (answers: Record<string, string[] | HostResolutionError>): ResolveHost =>
  async (host) => {
    const a = answers[host];
    if (a instanceof HostResolutionError) throw a;
    if (!a) throw new HostResolutionError('not-found', 'DNS lookup failed: ENOTFOUND');
    return a;
  };

async function refusal(endpoint: string, resolve: ResolveHost = table({}), allowlist = none): Promise<AppError> {
  try {
    await checkEndpoint(endpoint, { allowlist, resolve });
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error(`${endpoint} was accepted`);
}

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.254', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address (the range of cloud metadata services)'],
    ['100.64.0.1', 'a shared (carrier-grade NAT) address'],
    ['100.127.255.254', 'a shared (carrier-grade NAT) address'],
    ['0.0.0.0', 'an unspecified ("this host") address'],
    ['0.1.2.3', 'an unspecified ("this network") address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['255.255.255.255', 'a reserved or broadcast address'],
    ['192.0.2.10', 'a documentation address'],
    ['198.18.0.1', 'a benchmarking address'],
    ['::1', 'a loopback address'],
    ['0:0:0:0:0:0:0:1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fc00::1', 'a unique-local address'],
    ['fd12:3456::1', 'a unique-local address'],
    ['fe80::1', 'a link-local address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['2001:db8::1', 'a documentation address'],
    ['2001:0:4136:e378::1', 'a Teredo address'],
    ['2001:2::1', 'a benchmarking address'],
    ['::ffff:127.0.0.1', 'the IPv4-mapped form of a loopback address (127.0.0.1)'],
    ['::ffff:7f00:1', 'the IPv4-mapped form of a loopback address (127.0.0.1)'],
    [
      '::ffff:a9fe:a9fe',
      'the IPv4-mapped form of a link-local address (the range of cloud metadata services) (169.254.169.254)',
    ],
    ['::ffff:10.1.2.3', 'the IPv4-mapped form of a private address (10.1.2.3)'],
    ['64:ff9b::192.168.0.1', 'the NAT64 form of a private address (192.168.0.1)'],
    ['2002:0a00:0001::1', 'a deprecated 6to4 address'],
    ['::7f00:1', 'a deprecated IPv4-compatible address'],
    ['fec0::1', 'a deprecated site-local address'],
    ['3fff::1', 'a documentation address'],
    ['::10.0.0.1', 'a deprecated IPv4-compatible address'],
    ['4000::1', 'a reserved address'],
  ])('%s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toEqual({ public: false, kind });
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toEqual({ public: true });
  });
});

describe('checkEndpoint', () => {
  it('accepts https URLs on public IP literals and on names resolving only to public addresses', async () => {
    await expect(checkEndpoint('https://93.184.216.34/hook', { allowlist: none, resolve: table({}) })).resolves.toEqual(
      ['93.184.216.34'],
    );
    await expect(
      checkEndpoint('https://[2606:4700:4700::1111]:8443/x?y=1', { allowlist: none, resolve: table({}) }),
    ).resolves.toEqual(['2606:4700:4700::1111']);
    const resolve = table({ 'crm.example.com': ['93.184.216.34', '2606:2800:220:1::248'] });
    await expect(checkEndpoint('https://CRM.example.com/cc', { allowlist: none, resolve })).resolves.toHaveLength(2);
  });

  it('refuses loopback, private, link-local and metadata literals with a precise message', async () => {
    const cases: [string, string][] = [
      ['https://127.0.0.1/x', 'endpoint host 127.0.0.1 is a loopback address'],
      ['https://10.0.0.1/x', 'endpoint host 10.0.0.1 is a private address'],
      ['https://169.254.169.254/latest/meta-data', 'endpoint host 169.254.169.254 is a link-local address'],
      ['https://[::1]/x', 'endpoint host ::1 is a loopback address'],
      ['https://[::ffff:127.0.0.1]/x', 'endpoint host ::ffff:7f00:1 is the IPv4-mapped form of a loopback address'],
      ['https://2130706433/x', 'endpoint host 127.0.0.1 is a loopback address'],
      ['https://0x7f.1/x', 'endpoint host 127.0.0.1 is a loopback address'],
      ['https://[fd00::5]/', 'endpoint host fd00::5 is a unique-local address'],
    ];
    for (const [url, message] of cases) {
      const err = await refusal(url);
      expect(err.code).toBe('PROVIDER.ENDPOINT_NOT_ALLOWED');
      expect(err.message).toContain(message);
      expect(err.errors).toEqual([{ pointer: '/endpoint', message: err.message }]);
    }
  });

  it('refuses a name when any of its addresses is not public', async () => {
    const resolve = table({ localhost: ['127.0.0.1', '::1'], mixed: ['93.184.216.34', '10.1.1.1'] });
    expect((await refusal('https://localhost/x', resolve)).message).toBe(
      'endpoint host localhost resolves to 127.0.0.1, a loopback address; notifications are sent only to public internet addresses',
    );
    expect((await refusal('https://mixed:8443/', resolve)).message).toContain(
      'resolves to 10.1.1.1, a private address',
    );
  });

  it('refuses http and other schemes, credentials in the URL and non-URLs', async () => {
    expect((await refusal('http://93.184.216.34/')).message).toBe('endpoint must use https, not http');
    expect((await refusal('ftp://93.184.216.34/')).message).toBe('endpoint must use https, not ftp');
    expect((await refusal('https://user:pw@93.184.216.34/')).message).toBe(
      'endpoint must not contain credentials (user:password@); register them as an Authorization header',
    );
    expect((await refusal('not a url')).message).toBe('endpoint must be an absolute https URL');
  });

  it('answers an unresolvable name with 400 and a DNS timeout with 503', async () => {
    const unresolvable = await refusal('https://no-such-host.invalid/');
    expect(unresolvable.code).toBe('PROVIDER.ENDPOINT_UNRESOLVABLE');
    expect(unresolvable.message).toBe('endpoint host no-such-host.invalid does not resolve to any address');
    const empty = await refusal('https://empty.example/', table({ 'empty.example': [] }));
    expect(empty.code).toBe('PROVIDER.ENDPOINT_UNRESOLVABLE');
    const slow = await refusal(
      'https://slow.example/',
      table({ 'slow.example': new HostResolutionError('timeout', 'no DNS answer within 2000 ms') }),
    );
    expect(slow.code).toBe('PROVIDER.DNS_UNAVAILABLE');
    expect(slow.message).toContain('no DNS answer within 2000 ms');
  });

  it('refuses a host that is not a DNS name with 400 without asking DNS (getaddrinfo would refuse it: EINVAL)', async () => {
    const asked: string[] = [];
    const resolve: ResolveHost = async (host) => {
      asked.push(host);
      return ['93.184.216.34'];
    };
    const label63 = 'a'.repeat(63);
    const longest = [label63, label63, label63, 'a'.repeat(61)].join('.');
    expect(longest).toHaveLength(253);
    await expect(checkEndpoint(`https://${longest}./hook`, { allowlist: none, resolve })).resolves.toEqual([
      '93.184.216.34',
    ]);
    const tooLong = await refusal(`https://${longest}a/hook`, resolve);
    expect(tooLong.code).toBe('PROVIDER.ENDPOINT_UNRESOLVABLE');
    expect(tooLong.status).toBe(400);
    expect(tooLong.message).toBe(
      `endpoint host name ${'a'.repeat(63)}.... (254 characters) is longer than 253 characters; it cannot be resolved`,
    );
    expect((await refusal(`https://${'b'.repeat(64)}.example/`, resolve)).message).toContain(
      'has a label longer than 63 characters',
    );
    expect((await refusal('https://a..example/', resolve)).message).toBe(
      'endpoint host name a..example has an empty label; it cannot be resolved',
    );
    expect(asked).toEqual([`${longest}.`]);
  });

  it('lets the development allowlist pass hosts, addresses and ranges, and nothing else', async () => {
    const allowlist = EndpointAllowlist.parse('localhost, 127.0.0.1 ,10.0.0.0/8,[::1]');
    const resolve = table({ 'intranet.local': ['10.9.9.9'], other: ['192.168.0.1'] });
    for (const url of [
      'https://localhost:9443/x',
      'https://127.0.0.1/',
      'https://10.2.3.4/',
      'https://[::1]/',
      'https://intranet.local/',
    ]) {
      await expect(checkEndpoint(url, { allowlist, resolve })).resolves.toBeDefined();
    }
    expect((await refusal('https://127.0.0.2/', resolve, allowlist)).message).toContain('loopback');
    expect((await refusal('https://other/', resolve, allowlist)).message).toContain('private');
    expect((await refusal('http://localhost/', resolve, allowlist)).message).toBe('endpoint must use https, not http');
  });
});

describe('EndpointAllowlist.parse', () => {
  it('parses hosts, addresses and CIDR ranges', () => {
    const list = EndpointAllowlist.parse('127.0.0.1,localhost,fd00::/8,LocalHost.');
    expect(list.allowsHost('localhost')).toBe(true);
    expect(list.allowsHost('LOCALHOST.')).toBe(true);
    expect(list.allowsHost('127.0.0.2')).toBe(false);
    expect(list.allowsAddress('127.0.0.1')).toBe(true);
    expect(list.allowsAddress('::ffff:127.0.0.1')).toBe(true);
    expect(list.allowsAddress('fd12::1')).toBe(true);
    expect(list.allowsAddress('fe80::1%eth0')).toBe(false);
    expect(list.entries).toEqual(['127.0.0.1', 'localhost', 'fd00::/8', 'LocalHost.']);
  });

  it('refuses malformed entries by name', () => {
    expect(() => EndpointAllowlist.parse('10.0.0.0/33')).toThrow(
      'ENDPOINT_ALLOWLIST entry 10.0.0.0/33 has an invalid prefix length',
    );
    expect(() => EndpointAllowlist.parse('http://x')).toThrow('ENDPOINT_ALLOWLIST entry http://x is neither');
    expect(() => EndpointAllowlist.parse('a b')).toThrow('ENDPOINT_ALLOWLIST entry a b is neither');
  });
});
