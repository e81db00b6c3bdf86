import { eventually, freshName, testInfra } from '@cc/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { runCliProcess } from './cli-runner';
import { allUpstreams, form, getToken, startEchoUpstream, startGateway, type TestGateway } from './helpers';

// The CLI writes to the gateway's store with the same repositories; the running gateway serves and publishes.
describe('gateway CLI', () => {
  let gw: TestGateway;
  let upstream: Awaited<ReturnType<typeof startEchoUpstream>>;
  let consumer: Consumer;
  const accountId = freshName('cli').toLowerCase().replace(/_/g, '-');
  const events: { accountid: string; data: { changed: string[] } }[] = [];

  beforeAll(async () => {
    const infra = await testInfra();
    upstream = await startEchoUpstream(() => `${gw.url}/.well-known/jwks.json`);
    // The CLI's staged flag events reach Kafka through the gateway's outbox sweep (30 s by default): 2 s here.
    gw = await startGateway({
      ...allUpstreams(upstream.url),
      CC_DEMO_SEED: 'false',
      ACCOUNT_CACHE_MS: '0',
      OUTBOX_SWEEP_MS: '2000',
    });
    consumer = new Kafka({ brokers: infra.kafkaBrokers, clientId: 'gw-cli-test', logLevel: logLevel.NOTHING }).consumer(
      {
        groupId: freshName('gw-cli-test'),
      },
    );
    await consumer.connect();
    await consumer.subscribe({ topic: 'cc.account.v1', fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const e = JSON.parse(message.value?.toString('utf8') ?? '{}');
        if (e.accountid === accountId) events.push(e);
      },
    });
  });
  afterAll(async () => {
    await consumer?.disconnect();
    await gw?.stop();
    await upstream?.close();
  });

  const cli = async (...args: string[]) => {
    const res = await runCliProcess(gw.config, args);
    if (res.code !== 0) throw new Error(`cli ${args.join(' ')} → ${res.code}: ${res.stderr}`);
    return JSON.parse(res.stdout);
  };

  it('creates an account and a client whose secret (shown once) gets tokens from the running gateway', async () => {
    expect(await cli('accounts', 'create', accountId, 'CLI Ltd')).toMatchObject({ accountId, name: 'CLI Ltd' });
    const client = await cli('clients', 'create', accountId, 'ops', 'stats,admin');
    expect(client).toMatchObject({
      clientId: expect.any(String),
      clientSecret: expect.any(String),
      scopes: ['stats', 'admin'],
    });
    const token = await getToken(gw.url, client.clientId, client.clientSecret, 'admin');
    const me = await fetch(`${gw.url}/admin/account`, { headers: { authorization: `Bearer ${token}` } });
    expect(await me.json()).toMatchObject({ accountId });
    const listed = await cli('clients', 'list', accountId);
    expect(listed).toEqual([expect.objectContaining({ clientId: client.clientId })]);
    expect(JSON.stringify(listed)).not.toContain(client.clientSecret);
    expect(await cli('clients', 'delete', accountId, client.clientId)).toEqual({ deleted: client.clientId });
    const gone = await fetch(`${gw.url}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope: 'stats',
      }),
    });
    expect(gone.status).toBe(401);
  });

  it('sets feature flags; the running gateway publishes the staged event', async () => {
    expect(await cli('flags', 'set', accountId, 'agentSummaries=true')).toEqual({
      agentSummaries: true,
      conversationAnalysis: true,
      v0Statistics: true,
    });
    await eventually(() => events.some((e) => e.data.changed.includes('agentSummaries')), {
      timeoutMs: 20000,
      what: 'the flag event relayed by the gateway',
    });
  });

  it('creates v0 credentials with a chosen key and sets a rate-limit override', async () => {
    const key = `k${Date.now()}`;
    const cred = await cli('v0', 'create', accountId, key);
    expect(cred).toMatchObject({ accountKey: key, apiToken: expect.any(String) });
    const token = await fetch(`${gw.url}/v0/oauth2/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${key}:${cred.apiToken}`).toString('base64')}` },
    });
    expect(token.status).toBe(200);
    expect(await cli('accounts', 'rate-limit', accountId, '7', '3')).toMatchObject({ rateLimit: { rps: 7, burst: 3 } });
    const client = await cli('clients', 'create', accountId, 'rl', 'stats');
    const stats = await getToken(gw.url, client.clientId, client.clientSecret, 'stats');
    const res = await fetch(`${gw.url}/stats/agent-activities`, { headers: { authorization: `Bearer ${stats}` } });
    expect(res.headers.get('ratelimit-limit')).toBe('10');
  });

  it('exits non-zero with usage for bad input', async () => {
    const res = await runCliProcess(gw.config, ['clients', 'create', accountId, 'x', 'root']);
    expect(res.code).toBe(64);
    expect(res.stderr).toMatch(/unknown scope/);
    // --platform-admin is an option wherever it stands, never the client's name: here the scopes are missing.
    const flagAsName = await runCliProcess(gw.config, ['clients', 'create', accountId, '--platform-admin', 'stats']);
    expect(flagAsName.code).toBe(64);
    expect(flagAsName.stderr).toMatch(/missing <scopes>/);
    expect(JSON.stringify(await cli('clients', 'list', accountId))).not.toContain('--platform-admin');
    const missing = await runCliProcess(gw.config, ['accounts', 'show', 'no-such-account']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No account/);
  });
});
