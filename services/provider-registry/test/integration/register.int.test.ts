import { providerView } from '@cc/contracts';
import { createSecretBox } from '@cc/kit';
import { eventually, freshName } from '@cc/testing';
import { openSealed, sealedEventAad } from '../../src/events/provider.events';
import { type Client, client, providerPath } from '../support/client';
import { expectContract } from '../support/contract';
import { permissionCases } from '../support/permission-combinations';
import { type RegistryUnderTest, readProviderTopic, startRegistry, testKeys } from '../support/registry';

let registry: RegistryUnderTest;
let topic: Awaited<ReturnType<typeof readProviderTopic>>;
const account = freshName('acct').toLowerCase().replace(/_/g, '-');
let api: Client;
let admin: Client;

/** A public address (an IP literal: no DNS answer for public names in an offline test run). */
const publicEndpoint = 'https://93.184.216.34/cc/notifications';

beforeAll(async () => {
  registry = await startRegistry();
  topic = await readProviderTopic([account]);
  api = await registry.as(account, 'interactions:write');
  admin = await registry.as(account, 'admin');
}, 90_000);
afterAll(async () => {
  await topic?.stop();
  await registry?.stop();
});

let seq = 0;
const uniqueName = (prefix = 'P') => `${prefix}-${++seq}`;
const settings = (patch: Record<string, unknown> = {}) => ({
  provider: uniqueName(),
  agentactionspermitted: { release: 1 },
  ...patch,
});

/** Expects a 400 problem naming exactly this pointer with a message matching `message`. */
async function expectRefused(body: unknown, pointer: string, message: string | RegExp, code = 'REQUEST.VALIDATION') {
  const before = await registry.rawProviders().countDocuments({ accountId: account });
  const reply = await api.register(body);
  expect({ status: reply.status, type: reply.headers.get('content-type')?.split(';')[0] }).toEqual({
    status: 400,
    type: 'application/problem+json',
  });
  expect(reply.body.code).toBe(code);
  const hit = (reply.body.errors ?? []).find((e: { pointer: string }) => e.pointer === pointer);
  if (!hit) throw new Error(`no violation at ${pointer}: ${reply.text}`);
  if (typeof message === 'string') expect(hit.message).toBe(message);
  else expect(hit.message).toMatch(message);
  // Nothing was written.
  expect(await registry.rawProviders().countDocuments({ accountId: account })).toBe(before);
  return reply;
}

async function expectAccepted(body: Record<string, unknown>) {
  const reply = await api.register(body);
  if (reply.status !== 201) throw new Error(`expected 201, got ${reply.status}: ${reply.text}`);
  return reply;
}

describe('registration', () => {
  it('creates (201, secret shown once), then overwrites (200, no secret) on re-registration', async () => {
    const name = uniqueName('Acme');
    const first = await api.register({
      provider: name,
      endpoint: publicEndpoint,
      headers: { Authorization: 'Bearer first-token', 'X-Tenant': 'acme' },
      agentactionspermitted: { release: 1, hold: 1, transferToAgent: 0, transferToRoute: 1 },
    });
    expect(first.status).toBe(201);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body).toEqual({
      provider: name,
      endpoint: publicEndpoint,
      headers: { Authorization: '<redacted>', 'X-Tenant': '<redacted>' },
      agentactionspermitted: { release: 1, hold: 1, transferToAgent: 0, transferToRoute: 1 },
      permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: true },
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]+$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: first.body.createdAt,
    });
    expectContract(providerView, first.body);
    const secretBytes = Buffer.from(first.body.signingSecret.slice('whsec_'.length), 'base64');
    expect(secretBytes.length).toBeGreaterThanOrEqual(24);
    expect(secretBytes.length).toBeLessThanOrEqual(64);

    const second = await api.post('/interactions/register', {
      provider: name,
      headers: [{ key: 'X-Other', value: 'v2' }],
      agentactionspermitted: { release: 0 },
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      provider: name,
      endpoint: null,
      headers: { 'X-Other': '<redacted>' },
      agentactionspermitted: { release: 0 },
      permissions: { release: false, hold: false, retrieve: false, transferToAgent: false, transferToRoute: false },
      createdAt: first.body.createdAt,
      updatedAt: expect.any(String),
    });
    expect(second.body.signingSecret).toBeUndefined();
    expectContract(providerView, second.body);
    const stored = await admin.get(providerPath(name));
    expect(stored.body).toEqual(second.body);

    const events = await eventually(() => topic.of(account, name), {
      accept: (m) => m.length >= 2,
      what: 'two events',
    });
    expect(events.map((m) => [m.event.type, (m.event.data as { version: number }).version])).toEqual([
      ['provider.registered', 1],
      ['provider.updated', 2],
    ]);
    expect(events[1]?.event.data).toMatchObject({ reason: 're-registered', endpoint: null, headerNames: ['X-Other'] });
    expect(events[0]?.key).toBe(`${account}:${name}`);
  });

  it('concurrent registrations of one new name: exactly one creates it, every write is an event, versions 1..n', async () => {
    const name = uniqueName('race');
    const replies = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        api.register({ provider: name, headers: { 'X-Writer': String(i) }, agentactionspermitted: {} }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
    // Delivery is at least once: a consumer keeps the first copy of each event id.
    const firstCopies = () =>
      topic.of(account, name).filter((m, i, all) => all.findIndex((o) => o.event.id === m.event.id) === i);
    const events = await eventually(firstCopies, { accept: (m) => m.length >= 4, what: 'four distinct events' });
    expect(events.map((m) => (m.event.data as { version: number }).version)).toEqual([1, 2, 3, 4]);
    expect(events.map((m) => m.event.type)).toEqual([
      'provider.registered',
      'provider.updated',
      'provider.updated',
      'provider.updated',
    ]);
    // Each write's headers reached its event: the four writers' values, in some order, one per version.
    const box = createSecretBox(testKeys);
    const writers = events.map((m) => {
      const data = m.event.data as { version: number; sealed: never };
      return openSealed(box, sealedEventAad(account, name, data.version), data.sealed).headers[0]?.value;
    });
    expect([...writers].sort()).toEqual(['0', '1', '2', '3']);
  });

  it('accepts a provider without endpoint (omitted or null)', async () => {
    const omitted = await expectAccepted(settings());
    expect(omitted.body.endpoint).toBeNull();
    expect(omitted.body.headers).toEqual({});
    const explicitNull = await expectAccepted(settings({ endpoint: null, headers: { 'X-A': 'b' } }));
    expect(explicitNull.body.endpoint).toBeNull();
  });

  it('gives the effective permissions of all 81 combinations of the four operations (0, 1 or omitted)', async () => {
    const results: string[] = [];
    for (const c of permissionCases()) {
      const reply = await api.register({ provider: `perm ${c.label}`, agentactionspermitted: c.given });
      expect(reply.status).toBe(201);
      expect(reply.body.agentactionspermitted).toEqual(c.given);
      if (JSON.stringify(reply.body.permissions) !== JSON.stringify(c.expected)) {
        results.push(`${c.label}: got ${JSON.stringify(reply.body.permissions)}, want ${JSON.stringify(c.expected)}`);
      }
    }
    expect(results).toEqual([]);
    const listed = await admin.get('/admin/providers?limit=5000');
    expect(listed.body.items.filter((p: { provider: string }) => p.provider.startsWith('perm '))).toHaveLength(81);
  }, 120_000);
});

describe('the ProviderSettings rules, each with a passing and a failing case', () => {
  it('provider: required string of 1 to 100 printable characters', async () => {
    await expectAccepted(settings({ provider: `${'p'.repeat(97)}-${seq++}`.slice(0, 100) }));
    await expectAccepted(settings({ provider: `Acme CRM Ünïcødé ${seq++}` }));
    await expectRefused({ agentactionspermitted: {} }, '/provider', 'provider is required');
    await expectRefused(settings({ provider: '' }), '/provider', 'provider must not be empty');
    await expectRefused(
      settings({ provider: 'p'.repeat(101) }),
      '/provider',
      'provider must be at most 100 characters',
    );
    await expectRefused(settings({ provider: 'a\nb' }), '/provider', 'provider must be 1 to 100 printable characters');
    await expectRefused(settings({ provider: 42 }), '/provider', 'provider must be a string');
  });

  it('endpoint: optional https URL without credentials, at most 2048 characters', async () => {
    await expectAccepted(settings({ endpoint: publicEndpoint }));
    const long = `https://93.184.216.34/${'a'.repeat(2048 - 'https://93.184.216.34/'.length)}`;
    expect(long).toHaveLength(2048);
    await expectAccepted(settings({ endpoint: long }));
    await expectRefused(settings({ endpoint: `${long}a` }), '/endpoint', 'endpoint must be at most 2048 characters');
    await expectRefused(
      settings({ endpoint: 'http://93.184.216.34/x' }),
      '/endpoint',
      'endpoint must be an absolute https URL without credentials',
    );
    await expectRefused(
      settings({ endpoint: 'ftp://93.184.216.34/x' }),
      '/endpoint',
      'endpoint must be an absolute https URL without credentials',
    );
    await expectRefused(
      settings({ endpoint: 'crm.example.com/x' }),
      '/endpoint',
      'endpoint must be an absolute https URL without credentials',
    );
    await expectRefused(
      settings({ endpoint: 'https://user:secret@93.184.216.34/x' }),
      '/endpoint',
      'endpoint must be an absolute https URL without credentials',
    );
    await expectRefused(settings({ endpoint: 17 }), '/endpoint', 'endpoint must be a string or null');
  });

  it('headers: a map or an array of {key, value}, at most 20', async () => {
    await expectAccepted(settings({ headers: { 'X-Tenant': 'acme' } }));
    await expectAccepted(settings({ headers: [{ key: 'X-Tenant', value: 'acme' }] }));
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v']));
    await expectAccepted(settings({ headers: twenty }));
    await expectRefused(
      settings({ headers: { ...twenty, 'X-H20': 'v' } }),
      '/headers',
      'headers must have at most 20 properties',
    );
    await expectRefused(
      settings({ headers: Array.from({ length: 21 }, (_, i) => ({ key: `X-H${i}`, value: 'v' })) }),
      '/headers',
      'headers must have at most 20 items',
    );
    await expectRefused(
      settings({ headers: 'Authorization: Basic x' }),
      '/headers',
      'headers must be an object or an array',
    );
    await expectRefused(settings({ headers: [{ key: 'X-A' }] }), '/headers/0/value', 'value is required');
  });

  it('header names: RFC 9110 tokens of at most 100 characters, unique, not set by the service', async () => {
    await expectAccepted(settings({ headers: { [`X-${'n'.repeat(98)}`]: 'v' } }));
    await expectRefused(
      settings({ headers: { [`X-${'n'.repeat(99)}`]: 'v' } }),
      `/headers/X-${'n'.repeat(99)}`,
      /at most 100 characters/,
    );
    await expectRefused(settings({ headers: { 'bad name': 'v' } }), '/headers/bad name', /must be an HTTP header name/);
    await expectRefused(
      settings({ headers: [{ key: 'X:A', value: 'v' }] }),
      '/headers/0/key',
      /must be an HTTP header name/,
    );
    for (const reserved of [
      'Host',
      'Content-Length',
      'content-type',
      'Transfer-Encoding',
      'Connection',
      'webhook-signature',
      'Webhook-Id',
    ]) {
      await expectRefused(
        settings({ headers: { [reserved]: 'v' } }),
        `/headers/${reserved}`,
        /is set by the service and cannot be registered/,
      );
    }
    await expectRefused(
      settings({ headers: { 'X-Tenant': 'a', 'x-tenant': 'b' } }),
      '/headers/x-tenant',
      'header x-tenant is given twice (as X-Tenant); header names are case-insensitive',
    );
  });

  it('header values: at most 4096 printable characters, no CR, LF or NUL', async () => {
    await expectAccepted(settings({ headers: { 'X-Big': 'v'.repeat(4096) } }));
    await expectAccepted(settings({ headers: { 'X-Tab': 'a\tb' } }));
    await expectRefused(
      settings({ headers: { 'X-Big': 'v'.repeat(4097) } }),
      '/headers/X-Big',
      'X-Big must be at most 4096 characters',
    );
    await expectRefused(
      settings({ headers: { 'X-A': 'a\r\nX-Injected: 1' } }),
      '/headers/X-A',
      /must contain only printable ASCII characters or tabs/,
    );
    await expectRefused(
      settings({ headers: [{ key: 'X-A', value: 'a\nb' }] }),
      '/headers/0/value',
      /must contain only printable ASCII characters or tabs/,
    );
    // NUL is refused for every string by the contracts' validator before the header rule runs.
    await expectRefused(
      settings({ headers: { 'X-A': 'a\u0000b' } }),
      '/headers/X-A',
      /must not contain U\+0000 \(NUL\)/,
    );
    await expectRefused(
      settings({ headers: { 'X-A': 'café' } }),
      '/headers/X-A',
      /must contain only printable ASCII characters/,
    );
    await expectRefused(settings({ headers: { 'X-A': 5 } }), '/headers/X-A', 'X-A must be a string');
  });

  it('Authorization: "<type> <credentials>"', async () => {
    await expectAccepted(settings({ headers: { Authorization: 'Basic dXNlcjpwYXNz' } }));
    await expectAccepted(settings({ headers: [{ key: 'authorization', value: 'Bearer a.b.c' }] }));
    const form = /must have the form "<type> <credentials>"/;
    await expectRefused(settings({ headers: { Authorization: 'Bearer' } }), '/headers/Authorization', form);
    await expectRefused(settings({ headers: { authorization: 'token-only' } }), '/headers/authorization', form);
    await expectRefused(settings({ headers: [{ key: 'AUTHORIZATION', value: ' x' }] }), '/headers/0/value', form);
    await expectRefused(settings({ headers: { Authorization: 'Bearer: x' } }), '/headers/Authorization', form);
  });

  it('agentactionspermitted: required map of the four operations to 0 or 1', async () => {
    await expectAccepted(settings({ agentactionspermitted: {} }));
    await expectAccepted(
      settings({ agentactionspermitted: { release: 0, hold: 1, transferToAgent: 1, transferToRoute: 0 } }),
    );
    await expectRefused({ provider: uniqueName() }, '/agentactionspermitted', 'agentactionspermitted is required');
    await expectRefused(
      settings({ agentactionspermitted: { release: 2 } }),
      '/agentactionspermitted/release',
      'release must be one of: 0, 1',
    );
    await expectRefused(
      settings({ agentactionspermitted: { hold: '1' } }),
      '/agentactionspermitted/hold',
      'hold must be an integer',
    );
    await expectRefused(
      settings({ agentactionspermitted: { hold: true } }),
      '/agentactionspermitted/hold',
      'hold must be an integer',
    );
    await expectRefused(
      settings({ agentactionspermitted: { retrieve: 1 } }),
      '/agentactionspermitted/retrieve',
      'retrieve is not allowed (allowed: release, hold, transferToAgent, transferToRoute)',
    );
    await expectRefused(
      settings({ agentactionspermitted: [1] }),
      '/agentactionspermitted',
      'agentactionspermitted must be an object',
    );
  });

  it('refuses unknown top-level fields, non-JSON and malformed JSON', async () => {
    await expectRefused(settings({ extra: 1 }), '/extra', /is not allowed/);
    const notJson = await api.post('/interactions/Register', 'provider=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect([notJson.status, notJson.body.code]).toEqual([415, 'REQUEST.UNSUPPORTED_MEDIA_TYPE']);
    const malformed = await api.post('/interactions/Register', '{"provider":', { 'content-type': 'application/json' });
    expect([malformed.status, malformed.body.code]).toEqual([400, 'REQUEST.MALFORMED_JSON']);
  });

  it('a refused re-registration leaves the stored provider unchanged', async () => {
    const name = uniqueName();
    const created = await expectAccepted({
      provider: name,
      endpoint: publicEndpoint,
      agentactionspermitted: { hold: 1 },
    });
    const refused = await api.register({ provider: name, endpoint: 'https://10.0.0.1/', agentactionspermitted: {} });
    expect(refused.status).toBe(400);
    const stored = await admin.get(providerPath(name));
    expect(stored.body).toEqual({ ...created.body, signingSecret: undefined });
  });
});

describe('SSRF protection: endpoints must be public', () => {
  const cases: [string, string, string][] = [
    [
      'https://127.0.0.1/hook',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host 127.0.0.1 is a loopback address; notifications are sent only to public internet addresses',
    ],
    [
      'https://10.0.0.1/hook',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host 10.0.0.1 is a private address; notifications are sent only to public internet addresses',
    ],
    [
      'https://192.168.1.20/hook',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host 192.168.1.20 is a private address; notifications are sent only to public internet addresses',
    ],
    [
      'https://169.254.169.254/latest/meta-data/',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host 169.254.169.254 is a link-local address (the range of cloud metadata services); notifications are sent only to public internet addresses',
    ],
    [
      'https://100.64.0.1/',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host 100.64.0.1 is a shared (carrier-grade NAT) address; notifications are sent only to public internet addresses',
    ],
    [
      'https://localhost:8443/hook',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host localhost resolves to 127.0.0.1, a loopback address; notifications are sent only to public internet addresses',
    ],
    [
      'https://[::1]/hook',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host ::1 is a loopback address; notifications are sent only to public internet addresses',
    ],
    [
      'https://[fd00::1]/hook',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host fd00::1 is a unique-local address; notifications are sent only to public internet addresses',
    ],
    [
      'https://[::ffff:169.254.169.254]/',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host ::ffff:a9fe:a9fe is the IPv4-mapped form of a link-local address (the range of cloud metadata services) (169.254.169.254); notifications are sent only to public internet addresses',
    ],
    [
      'https://2130706433/',
      'PROVIDER.ENDPOINT_NOT_ALLOWED',
      'endpoint host 127.0.0.1 is a loopback address; notifications are sent only to public internet addresses',
    ],
    [
      'https://no-such-host.invalid/hook',
      'PROVIDER.ENDPOINT_UNRESOLVABLE',
      'endpoint host no-such-host.invalid does not resolve to any address',
    ],
    [
      // getaddrinfo refuses a name this long (EINVAL) without asking DNS: once answered 503 as if DNS were down.
      `https://${'a.'.repeat(127)}com/hook`,
      'PROVIDER.ENDPOINT_UNRESOLVABLE',
      `endpoint host name ${'a.'.repeat(32)}... (257 characters) is longer than 253 characters; it cannot be resolved`,
    ],
  ];

  it.each(cases)('%s is refused with a precise 400', async (endpoint, code, message) => {
    const name = uniqueName('ssrf');
    const reply = await api.register({ provider: name, endpoint, agentactionspermitted: {} });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ code, detail: message, errors: [{ pointer: '/endpoint', message }] });
    expect((await admin.get(providerPath(name))).status).toBe(404);
  });

  it('http:// is refused by the request rules', async () => {
    const reply = await api.register({
      provider: uniqueName(),
      endpoint: 'http://93.184.216.34/hook',
      agentactionspermitted: {},
    });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual([
      { pointer: '/endpoint', message: 'endpoint must be an absolute https URL without credentials' },
    ]);
  });
});

describe('secrets never in clear', () => {
  it('the stored document, the Kafka event and the logs hold no header value or signing secret; the notifier can open them', async () => {
    const name = uniqueName('secretive');
    const token = `tok-${freshName('s')}`;
    const apiKey = `key-${freshName('k')}`;
    const reply = await api.register({
      provider: name,
      endpoint: publicEndpoint,
      headers: { Authorization: `Bearer ${token}`, 'X-Api-Key': apiKey },
      agentactionspermitted: { hold: 1 },
    });
    expect(reply.status).toBe(201);
    const secret: string = reply.body.signingSecret;
    const clear = [token, apiKey, secret, secret.slice('whsec_'.length)];

    const doc = await registry.rawProviders().findOne({ accountId: account, name });
    expect(doc).not.toBeNull();
    const stored = JSON.stringify(doc);
    for (const value of clear) expect(stored).not.toContain(value);
    expect(
      doc?.headers.map((h: { name: string; value: string }) => [h.name, h.value.split('.').slice(0, 2).join('.')]),
    ).toEqual([
      ['Authorization', 'v1.t1'],
      ['X-Api-Key', 'v1.t1'],
    ]);
    expect(doc?.signingSecrets[0].secret).toMatch(/^v1\.t1\./);
    expect(doc?.keyId).toBe('t1');
    expect(doc?.outbox).toEqual([]); // published eagerly, before the response

    const [message] = await eventually(() => topic.of(account, name), {
      accept: (m) => m.length >= 1,
      what: 'provider.registered',
    });
    for (const value of clear) expect(message?.value).not.toContain(value);
    const data = message?.event.data as {
      sealed: { kid: string; alg: string; iv: string; tag: string; ciphertext: string };
      version: number;
    };
    expect(data.sealed).toMatchObject({ kid: 't1', alg: 'A256GCM' });
    const opened = openSealed(
      createSecretBox(testKeys),
      sealedEventAad(account, name, data.version),
      data.sealed as never,
    );
    expect(opened).toEqual({
      headers: [
        { key: 'Authorization', value: `Bearer ${token}` },
        { key: 'X-Api-Key', value: apiKey },
      ],
      signingSecrets: [{ secret, validUntil: null }],
    });

    const logs = registry.logs.text();
    expect(logs).toContain('provider registered');
    for (const value of clear) expect(logs).not.toContain(value);
  });
});

describe('access', () => {
  it('requires a token with the interactions:write scope and a supported version', async () => {
    const anonymous = await client(registry.baseUrl).register(settings());
    expect([anonymous.status, anonymous.body.code]).toEqual([401, 'AUTH.UNAUTHENTICATED']);
    const wrongScope = await admin.register(settings());
    expect([wrongScope.status, wrongScope.body.code]).toEqual([403, 'AUTH.FORBIDDEN']);
    const v1 = await api.register(settings(), { accept: 'application/vnd.newvoicemedia.v1+json' });
    expect(v1.status).toBe(201);
    expect(v1.headers.get('content-type')).toContain('application/vnd.newvoicemedia.v1+json');
    const v9 = await api.register(settings(), { accept: 'application/vnd.newvoicemedia.v9+json' });
    expect([v9.status, v9.body.code]).toEqual([406, 'REQUEST.NOT_ACCEPTABLE']);
  });
});
