import { randomUUID } from 'node:crypto';
import { type ClientRequest, request } from 'node:http';
import { eventually, testInfra } from '@cc/testing';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { demo, getToken, startGateway, type TestGateway } from './helpers';

/** One parsed SSE message, or a comment. */
interface SseItem {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** A raw SSE connection over node:http: its status, headers and the messages parsed so far. */
interface SseConnection {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  items: SseItem[];
  /** Envelopes of the events received (not comments, not stream.reset). */
  events(): { id: string; event: string; envelope: { id: string; accountid: string; type: string } }[];
  ended: boolean;
  body: string;
  req: ClientRequest;
  pause(): void;
  resume(): void;
  close(): void;
}

function openStream(
  url: string,
  token: string | undefined,
  headers: Record<string, string> = {},
  path = '/events/stream',
) {
  return new Promise<SseConnection>((resolve, reject) => {
    const req = request(`${url}${path}`, {
      headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let buffer = '';
      const conn: SseConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        items: [],
        events: () =>
          conn.items
            .filter((i) => i.event && i.event !== 'stream.reset')
            .map((i) => ({ id: i.id ?? '', event: i.event ?? '', envelope: JSON.parse(i.data ?? '{}') })),
        ended: false,
        body: '',
        req,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        conn.body += conn.status === 200 ? '' : chunk;
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const item: SseItem = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) item.comment = line.slice(1).trim();
            else {
              const colon = line.indexOf(':');
              const field = line.slice(0, colon) as keyof SseItem;
              item[field] = line.slice(colon + 1).replace(/^ /, '');
            }
          }
          conn.items.push(item);
        }
      });
      res.on('end', () => {
        conn.ended = true;
      });
      res.on('close', () => {
        conn.ended = true;
      });
      res.on('error', () => undefined);
      resolve(conn);
    });
    req.end();
  });
}

/** A fresh account through the operator API, and an `admin` token of its first admin client. */
async function createAccount(gw: TestGateway, label: string): Promise<{ accountId: string; admin: string }> {
  const platform = await getToken(gw.url, demo.clientId, demo.secret, 'admin');
  const accountId = `sse-${label}-${randomUUID().slice(0, 8)}`;
  const res = await fetch(`${gw.url}/admin/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform}`, 'content-type': 'application/json' },
    body: JSON.stringify({ accountId, name: `SSE ${label}` }),
  });
  if (res.status !== 201) throw new Error(`create account: ${res.status} ${await res.text()}`);
  const { adminClient } = (await res.json()) as { adminClient: { clientId: string; clientSecret: string } };
  return { accountId, admin: await getToken(gw.url, adminClient.clientId, adminClient.clientSecret, 'admin') };
}

/**
 * Publishes events as the producers do (structured CloudEvents JSON, key `<account>:<subject>`), all of one account
 * under one subject, so they stay on one partition in the order published.
 */
async function publish(producer: Producer, topic: string, accountId: string, type: string, n = 1): Promise<string[]> {
  const ids = Array.from({ length: n }, () => randomUUID());
  await producer.send({
    topic,
    messages: ids.map((id) => ({
      key: `${accountId}:sse-test`,
      value: JSON.stringify({
        specversion: '1.0',
        id,
        source: '/cc/test',
        type,
        time: new Date().toISOString(),
        subject: 'sse-test',
        accountid: accountId,
        datacontenttype: 'application/json',
        data: { marker: id },
      }),
    })),
  });
  return ids;
}

const streamed = ['cc.interaction.v1', 'cc.agent-activity.v1', 'cc.notification-delivery.v1', 'cc.analysis.v1'];

describe('GET /events/stream (live events over a real broker)', () => {
  let gw: TestGateway;
  let producer: Producer;
  let a: { accountId: string; admin: string };
  let b: { accountId: string; admin: string };
  const open: SseConnection[] = [];
  const connect = async (...args: Parameters<typeof openStream>) => {
    const c = await openStream(...args);
    open.push(c);
    return c;
  };

  beforeAll(async () => {
    const infra = await testInfra();
    gw = await startGateway({
      EVENT_STREAM_HEARTBEAT_MS: '300',
      EVENT_STREAM_MAX_BUFFER_BYTES: '1048576',
      EVENT_STREAM_MAX_BUFFER_EVENTS: '20',
    });
    producer = new Kafka({
      brokers: infra.kafkaBrokers,
      clientId: 'gw-sse-test',
      logLevel: logLevel.NOTHING,
    }).producer();
    await producer.connect();
    [a, b] = await Promise.all([createAccount(gw, 'a'), createAccount(gw, 'b')]);
    // Ready means the stream's consumer joined its group: from then on, what is published reaches it.
    await eventually(async () => (await fetch(`${gw.url}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      what: 'gateway ready (event stream consumer joined)',
    });
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.close();
  });
  afterAll(async () => {
    await producer?.disconnect();
    await gw?.stop();
  });

  it('refuses no token (401) and a token without the admin scope (403) as problem+json, and a bad Last-Event-ID (400)', async () => {
    const none = await connect(gw.url, undefined);
    await eventually(() => none.ended, { what: 'the 401 answer' });
    expect(none.status).toBe(401);
    expect(none.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(none.body)).toMatchObject({ status: 401, code: 'AUTH.UNAUTHENTICATED' });

    const stats = await getToken(gw.url, demo.clientId, demo.secret, 'stats');
    const forbidden = await connect(gw.url, stats);
    await eventually(() => forbidden.ended, { what: 'the 403 answer' });
    expect(forbidden.status).toBe(403);
    expect(JSON.parse(forbidden.body)).toMatchObject({ status: 403, code: 'AUTH.FORBIDDEN' });

    const long = await connect(gw.url, a.admin, { 'last-event-id': 'x'.repeat(201) });
    await eventually(() => long.ended, { what: 'the 400 answer' });
    expect(long.status).toBe(400);
    expect(JSON.parse(long.body)).toMatchObject({
      code: 'REQUEST.VALIDATION',
      errors: [{ pointer: '/headers/last-event-id' }],
    });

    const extra = await connect(gw.url, a.admin, {}, '/events/stream?account=other');
    await eventually(() => extra.ended, { what: 'the 400 answer' });
    expect(extra.status).toBe(400);
  });

  it("streams each account's events of every streamed topic, and none of another account's", async () => {
    const sa = await connect(gw.url, a.admin);
    const sb = await connect(gw.url, b.admin);
    expect(sa.status).toBe(200);
    expect(sa.headers['content-type']).toMatch(/^text\/event-stream/);
    await eventually(() => sa.items.some((i) => i.retry) && sb.items.some((i) => i.retry), { what: 'retry: sent' });

    const aIds: string[] = [];
    for (const topic of streamed) aIds.push(...(await publish(producer, topic, a.accountId, `test.${topic}`, 3)));
    const bIds = await publish(producer, 'cc.interaction.v1', b.accountId, 'interaction.queued', 2);
    await eventually(() => aIds.every((id) => sa.events().some((e) => e.envelope.id === id)), {
      timeoutMs: 20_000,
      what: "A's 12 events on A's stream",
    });
    await eventually(() => bIds.every((id) => sb.events().some((e) => e.envelope.id === id)), {
      timeoutMs: 20_000,
      what: "B's 2 events on B's stream",
    });
    // Every A event has passed the hub's fan-out (A's stream has them all), so a leak would already show on B's.
    expect(sb.events().map((e) => e.envelope.accountid)).toEqual([b.accountId, b.accountId]);
    expect(new Set(sa.events().map((e) => e.envelope.accountid))).toEqual(new Set([a.accountId]));
    const first = sa.events().find((e) => e.envelope.id === aIds[0]);
    expect(first).toMatchObject({ event: 'test.cc.interaction.v1', envelope: { type: 'test.cc.interaction.v1' } });
    expect(first?.id).toMatch(/^\S+\.\d+$/);
  });

  it('resumes after Last-Event-ID from the window, and answers an unknown id with stream.reset', async () => {
    const s1 = await connect(gw.url, a.admin);
    await eventually(() => s1.items.some((i) => i.comment === 'stream open'), { what: 'stream open' });
    const before = await publish(producer, 'cc.agent-activity.v1', a.accountId, 'agent.presence-changed', 3);
    await eventually(() => before.every((id) => s1.events().some((e) => e.envelope.id === id)), {
      timeoutMs: 20_000,
      what: 'the first three events',
    });
    const cursor = s1.events().find((e) => e.envelope.id === before[0])?.id as string;
    s1.close();
    const missed = await publish(producer, 'cc.agent-activity.v1', a.accountId, 'agent.presence-changed', 2);
    // The missed events reached the gateway (a probe stream sees them) before the resume is opened.
    const probe = await connect(gw.url, a.admin, { 'last-event-id': cursor });
    await eventually(() => missed.every((id) => probe.events().some((e) => e.envelope.id === id)), {
      timeoutMs: 20_000,
      what: 'the missed events at the gateway',
    });
    const resumed = await connect(gw.url, a.admin, { 'last-event-id': cursor });
    const after = await publish(producer, 'cc.agent-activity.v1', a.accountId, 'agent.presence-changed', 1);
    const want = [before[1], before[2], ...missed, ...after];
    await eventually(() => want.every((id) => resumed.events().some((e) => e.envelope.id === id)), {
      timeoutMs: 20_000,
      what: 'replayed then live events',
    });
    // Replay in order, no duplicate, nothing from before the cursor; live events follow.
    expect(resumed.events().map((e) => e.envelope.id)).toEqual(want);

    const byQuery = await connect(gw.url, a.admin, {}, `/events/stream?lastEventId=${encodeURIComponent(cursor)}`);
    await eventually(() => byQuery.events().length >= 4, { what: 'replay by query parameter' });
    expect(byQuery.events()[0]?.envelope.id).toBe(before[1]);

    const unknown = await connect(gw.url, a.admin, { 'last-event-id': 'another-instance.12' });
    await eventually(() => unknown.items.some((i) => i.event === 'stream.reset'), { what: 'stream.reset' });
    const reset = unknown.items.find((i) => i.event === 'stream.reset') as SseItem;
    expect(JSON.parse(reset.data ?? '')).toEqual({ reason: 'unknown-cursor', lastEventId: 'another-instance.12' });
    expect(reset.id).toMatch(new RegExp(`^${gw.svc.eventStream.epoch}\\.\\d+$`));
    expect(gw.svc.eventStream.stats.resumed.reset).toBeGreaterThanOrEqual(1);
  });

  it('sends a heartbeat comment on an idle stream', async () => {
    const s = await connect(gw.url, b.admin);
    await eventually(() => s.items.filter((i) => i.comment === 'heartbeat').length >= 2, {
      timeoutMs: 10_000,
      what: 'two heartbeats',
    });
  });

  it('drops a stream that does not read (bounded buffer, counted) while a reading one of the same account goes on', async () => {
    const slow = await connect(gw.url, a.admin);
    const fast = await connect(gw.url, a.admin);
    await eventually(() => slow.items.length > 0 && fast.items.length > 0, { what: 'both streams open' });
    slow.pause();
    const hub = gw.svc.eventStream;
    const droppedBefore = hub.stats.dropped.slow;
    const padding = 'x'.repeat(100_000);
    let sent = 0;
    // Published straight into the hub (the Kafka path is covered above), 100 kB at a time, each read by the fast
    // stream before the next: megabytes, until the paused reader's socket buffers are full and the gateway's own
    // bound (1 MiB or 20 waiting events) is crossed.
    await eventually(
      async () => {
        sent += 1;
        const id = `big-${sent}`;
        hub.publish({
          accountId: a.accountId,
          type: 'test.big',
          json: JSON.stringify({ id, accountid: a.accountId, padding }),
        });
        await eventually(() => fast.events().some((e) => e.envelope.id === id), { intervalMs: 1, what: `${id} read` });
        return hub.stats.dropped.slow > droppedBefore;
      },
      { timeoutMs: 60_000, intervalMs: 1, what: 'the slow stream dropped' },
    );
    expect(hub.stats.dropped.slow).toBe(droppedBefore + 1);
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_event_stream_dropped_total\{reason="slow"[^}]*\} [1-9]/);
    // The reader that keeps up is still open and gets everything.
    await eventually(() => fast.events().filter((e) => e.event === 'test.big').length === sent, {
      timeoutMs: 30_000,
      what: 'every big event on the reading stream',
    });
    expect(fast.ended).toBe(false);
    slow.resume();
    await eventually(() => slow.ended, { timeoutMs: 30_000, what: 'the dropped stream closed' });
  });
});
