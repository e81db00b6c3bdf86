import { dropDatabase, eventually, freshName, startGatewayProcess, testInfra } from '@cc/testing';
import { decodeProtectedHeader } from 'jose';
import { runCliProcess } from './cli-runner';
import {
  allUpstreams,
  demo,
  getToken,
  startEchoUpstream,
  startGateway,
  type TestGateway,
  testEncryptionKeys,
} from './helpers';

// Signing-key rotation: a new key is published before it signs; tokens of the old key keep working.
describe('gateway signing-key rotation', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;

  beforeAll(async () => {
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    gw = await startGateway({
      ...allUpstreams(upstream.url),
      SIGNING_KEY_ACTIVATION_DELAY_MS: '1500',
      SIGNING_KEY_RELOAD_MS: '300',
    });
  });
  afterAll(async () => {
    await gw?.stop();
    await upstream?.close();
  });

  const kidOf = (token: string) => decodeProtectedHeader(token).kid;
  const jwksKids = async () =>
    ((await (await fetch(`${gw.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map(
      (k) => k.kid,
    );
  const accepted = async (token: string) =>
    (await fetch(`${gw.url}/stats/agent-activities`, { headers: { authorization: `Bearer ${token}` } })).status;

  it('publishes a rotated key first, signs with it after the delay, and keeps accepting old tokens', async () => {
    const old = await getToken(gw.url, demo.clientId, demo.secret, 'stats');
    const oldKid = kidOf(old);
    expect(await jwksKids()).toEqual([oldKid]);

    const ring = gw.svc.keyRing;
    if (!ring) throw new Error('built-in issuer expected');
    const rotated = await ring.rotate();
    expect(await jwksKids()).toEqual([oldKid, rotated.kid]);
    // Not active yet: every replica and every service's JWKS cache gets to see it first.
    expect(kidOf(await getToken(gw.url, demo.clientId, demo.secret, 'stats'))).toBe(oldKid);

    const fresh = await eventually(
      async () => {
        const t = await getToken(gw.url, demo.clientId, demo.secret, 'stats');
        return kidOf(t) === rotated.kid ? t : undefined;
      },
      { intervalMs: 300, timeoutMs: 10000, what: 'tokens of the new key' },
    );
    expect(await accepted(fresh as string)).toBe(200);
    expect(await accepted(old)).toBe(200);
    const [oldInfo] = await ring.list();
    expect(oldInfo?.retiresAt?.getTime()).toBeGreaterThan(Date.now() + 7200_000);
  });

  it('picks up a rotation made with the CLI', async () => {
    const before = await jwksKids();
    const res = await runCliProcess(gw.config, ['keys', 'rotate']);
    expect(res.code).toBe(0);
    const { kid } = JSON.parse(res.stdout) as { kid: string };
    expect(before).not.toContain(kid);
    await eventually(async () => (await jwksKids()).includes(kid), {
      timeoutMs: 10000,
      what: 'the CLI key in the JWKS',
    });
    const listed = await runCliProcess(gw.config, ['keys', 'list']);
    expect(JSON.parse(listed.stdout).map((k: { kid: string }) => k.kid)).toEqual([...before, kid]);
    expect(listed.stdout).not.toMatch(/PRIVATE|privateKey/);
  });
});

describe('gateway signing key sealed under other encryption keys', () => {
  it('refuses to start, naming the key and the encryption key id, instead of answering tokens with a 500', async () => {
    const mongoDb = freshName('gw_keys');
    try {
      const first = await startGatewayProcess({}, { MONGO_DB: mongoDb, CC_ENCRYPTION_KEYS: testEncryptionKeys() });
      const jwks = (await (await fetch(first.jwksUrl)).json()) as { keys: { kid: string }[] };
      const kid = jwks.keys[0]?.kid;
      expect(kid).toBeDefined();
      await first.stop();
      // The same key id with other key material: the stored signing key cannot be opened.
      const second = startGatewayProcess({}, { MONGO_DB: mongoDb, CC_ENCRYPTION_KEYS: testEncryptionKeys() });
      await expect(second).rejects.toThrow(/gateway exited 1/);
      await expect(second).rejects.toThrow(
        new RegExp(`token signing key ${kid} cannot be opened with CC_ENCRYPTION_KEYS .*encryption key id 't1'`),
      );
    } finally {
      await dropDatabase((await testInfra()).mongoUrl, mongoDb);
    }
  });
});

describe('gateway with an upcoming signing key it cannot open', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startGateway({ SIGNING_KEY_ACTIVATION_DELAY_MS: '3600000', SIGNING_KEY_RELOAD_MS: '300' });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  const complaints = () =>
    gw.logs.lines
      .map((l) => JSON.parse(l) as { msg?: string; kid?: string; encryptionKeyId?: string })
      .filter((l) => l.msg?.startsWith('upcoming token signing key cannot be opened'));

  it('says so as soon as it reads the key, while the current key still signs', async () => {
    // A rotation under the gateway's own keys: it opens the new key, and says nothing.
    const own = await runCliProcess(gw.config, ['keys', 'rotate']);
    expect(own.code).toBe(0);
    const ownKid = (JSON.parse(own.stdout) as { kid: string }).kid;
    // A CLI given other key material under the same key id: this gateway cannot open what it sealed.
    const otherKeys = testEncryptionKeys();
    const other = await runCliProcess({ ...gw.config, CC_ENCRYPTION_KEYS: otherKeys }, ['keys', 'rotate']);
    expect(other.code).toBe(0);
    const otherKid = (JSON.parse(other.stdout) as { kid: string }).kid;

    const said = await eventually(async () => complaints().find((l) => l.kid === otherKid), {
      intervalMs: 100,
      timeoutMs: 10000,
      what: 'the complaint about the unopenable upcoming key',
    });
    expect(said?.encryptionKeyId).toBe('t1');
    expect(complaints().map((l) => l.kid)).toEqual([otherKid]);
    expect(complaints().some((l) => l.kid === ownKid)).toBe(false);
    expect(gw.logs.text()).not.toContain(otherKeys.slice(3));
    expect(gw.logs.text()).not.toContain(String(gw.config.CC_ENCRYPTION_KEYS).slice(3));
    // Said once, not on every reload.
    await new Promise((r) => setTimeout(r, 1000));
    expect(complaints()).toHaveLength(1);
    // The key that signs now still does.
    await getToken(gw.url, demo.clientId, demo.secret, 'stats');
  });
});
