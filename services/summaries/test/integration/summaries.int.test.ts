import { randomUUID } from 'node:crypto';
import { type CloudEvent, newEvent } from '@cc/bus';
import { CapturedLogs, eventually, freshName, startTestIssuer, type TestIssuer, testInfra } from '@cc/testing';
import { loadServiceConfig } from '../../src/config';
import { periodOf } from '../../src/domain/buckets';
import { type SummariesService, startService } from '../../src/service';
import { AgentEvents } from '../builders/activity.builders';

// Events on topics of this file's own, consumed by a fresh group into a fresh database, read over HTTP.
let issuer: TestIssuer;
let service: SummariesService;
let env: Record<string, string>;
const activityTopic = freshName('t_activity');
const accountTopic = freshName('t_account');
const accountId = `acc-${randomUUID()}`;
const agent = new AgentEvents(randomUUID(), 'alice');
// Three hours ago, on a period start, so every period of the shift is complete.
const base = periodOf(Date.now()) - 3 * 3_600_000;
const at = (min: number, sec = 0) => new Date(base + min * 60_000 + sec * 1000).toISOString();
// The shift's window: 45 minutes (the agent stays Away after it, which would count up to now).
const shift = `start=${encodeURIComponent(at(0))}&end=${encodeURIComponent(at(45))}`;

async function start(): Promise<SummariesService> {
  const config = { ...loadServiceConfig(env), PORT: 0 };
  return startService(config, { logDestination: new CapturedLogs(), exitOnShutdown: false });
}

const publish = (events: { type: string; data: unknown }[], topic = activityTopic) =>
  service.producer.publish(
    topic,
    events.map(
      (e) =>
        newEvent({
          source: '/cc/routing',
          type: e.type,
          subject: (e.data as { agentId?: string }).agentId ?? accountId,
          accountId,
          data: { accountId, ...(e.data as object) },
        }) as CloudEvent,
    ),
  );

const flag = (enabled: boolean, occurredAt = new Date().toISOString()) =>
  publish(
    [
      {
        type: 'account.feature-flags-changed',
        data: {
          flags: { agentSummaries: enabled, conversationAnalysis: false, v0Statistics: false },
          changed: ['agentSummaries'],
          occurredAt,
        },
      },
    ],
    accountTopic,
  );

async function get(query: string, account = accountId, scope = 'stats') {
  const token = await issuer.token({ accountId: account, scopes: scope });
  const res = await fetch(`${service.url()}/stats/wfm/agent-summaries?${query}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> & { items: Item[]; upTo: string } };
}

interface Item {
  agentId: string;
  timestamp: string;
  revision: number;
  interactions: { handleTime: { type: string; totalTime: number }[]; offered: { type: string; count: number }[] };
  presence: { states: { type: string; totalTime: number; count: number }[] };
}

/**
 * Waits until the consumer handled everything published before now. The HTTP answer's upTo cannot tell: it stops at
 * the window's end, hours ago, which the watermark passed before anything was published.
 */
async function caughtUp() {
  const now = Date.now();
  await eventually(() => service.watermark.upTo() ?? 0, {
    timeoutMs: 40_000,
    what: 'the consumer caught up',
    accept: (w) => w > now,
  });
}

const compact = (items: Item[]) =>
  items.map((i) => ({
    at: i.timestamp,
    ht: Object.fromEntries(i.interactions.handleTime.filter((h) => h.totalTime).map((h) => [h.type, h.totalTime])),
    offered: Object.fromEntries(i.interactions.offered.filter((o) => o.count).map((o) => [o.type, o.count])),
    presence: Object.fromEntries(i.presence.states.map((s) => [s.type, [s.totalTime, s.count]])),
  }));

beforeAll(async () => {
  const infra = await testInfra();
  issuer = await startTestIssuer();
  env = {
    KAFKA_BROKERS: infra.kafkaBrokers.join(','),
    MONGO_URL: infra.mongoUrl,
    MONGO_DB: freshName('cc_summaries'),
    KAFKA_GROUP_ID: freshName('summaries'),
    AGENT_ACTIVITY_TOPIC: activityTopic,
    ACCOUNT_TOPIC: accountTopic,
    WATERMARK_GRACE_MS: '0',
    SHUTDOWN_DEADLINE_MS: '20000',
    ...issuer.env,
  };
  service = await start();
});

afterAll(async () => {
  await service?.conn
    .getClient()
    .db(env.MONGO_DB)
    .dropDatabase()
    .catch(() => undefined);
  await service?.stop();
  await issuer?.close();
});

describe('GET /stats/wfm/agent-summaries from events on a real topic', () => {
  it('answers 403 SUMMARIES.FEATURE_DISABLED while the account has not enabled summaries', async () => {
    const res = await get(`start=${encodeURIComponent(at(0))}`);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ status: 403, code: 'SUMMARIES.FEATURE_DISABLED' });
  });

  it('refuses bad parameters naming each field', async () => {
    await flag(true);
    await eventually(() => service.flags.enabled(accountId), { what: 'flag consumed' });
    const bad = await get(`start=${encodeURIComponent(at(0))}&cadence=30&limit=0`);
    expect(bad.status).toBe(400);
    expect((bad.body.errors as { pointer: string }[]).map((e) => e.pointer).sort()).toEqual([
      '/query/cadence',
      '/query/limit',
    ]);
    const long = await get('start=2026-01-01T00:00:00Z&end=2026-02-02T00:00:00Z');
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([{ pointer: '/query/end', message: 'the window may span at most 31 days' }]);
    expect((await get('end=2026-01-01T00:00:00Z')).body.errors).toEqual([
      expect.objectContaining({ pointer: '/query/start' }),
    ]);
    expect((await get(`start=${encodeURIComponent(at(0))}`, accountId, 'admin')).status).toBe(403);
  });

  it('sums a shift into 15-minute summaries, revises a served one on a late event, and survives a restart', async () => {
    const c1 = randomUUID();
    await publish([
      agent.presence(at(2), 'Ready'),
      agent.segmentStarted(at(5), 'Ringing', c1),
      agent.segmentEnded(at(5), at(5, 10), 'Ringing', c1, 'Answered'),
      agent.segmentStarted(at(5, 10), 'Connected', c1),
      agent.segmentStarted(at(13), 'HeldExternalParty', c1),
      agent.segmentEnded(at(13), at(16), 'HeldExternalParty', c1),
      agent.segmentEnded(at(5, 10), at(20), 'Connected', c1),
      agent.segmentStarted(at(20), 'Wrap', c1),
      agent.segmentEnded(at(20), at(21), 'Wrap', c1),
      agent.presence(at(25, 30), 'Away', { presence: 'Ready', since: at(2) }),
    ]);
    await caughtUp();
    const first = await get(shift);
    expect(first.body).toMatchObject({
      cadence: 15,
      upTo: at(45),
      meta: { page: 1, count: 3, pageCount: 1, totalCount: 3 },
    });
    // Away is still open: it counts up to upTo (here the window's end).
    expect(compact(first.body.items)).toEqual([
      { at: at(30), ht: {}, offered: {}, presence: { Away: [900, 0] } },
      {
        at: at(15),
        ht: { Connected: 300, Wrap: 60, HeldExternalParty: 60 },
        offered: {},
        presence: { Ready: [630, 0], Away: [270, 1] },
      },
      {
        at: at(0),
        ht: { Ringing: 10, Connected: 590, HeldExternalParty: 120 },
        offered: { Answered: 1 },
        presence: { Ready: [780, 1] },
      },
    ]);
    const served = first.body.items[1] as Item;

    // A late event (after the watermark passed it): a missed offer at 10:24 revises the served 10:15 summary.
    const c2 = randomUUID();
    await caughtUp();
    const lateFrom = (await get(`start=${encodeURIComponent(at(0))}`)).body.upTo;
    await publish([agent.segmentEnded(at(24), at(24, 20), 'Ringing', c2, 'Unexpected')]);
    const revised = await eventually(() => get(`${shift}&revisedSince=${encodeURIComponent(lateFrom)}`), {
      timeoutMs: 40_000,
      intervalMs: 250,
      what: 'the revised summary',
      accept: (r) => r.status === 200 && r.body.items.length === 1,
    });
    const item = revised.body.items[0] as Item;
    expect(item.timestamp).toBe(at(15));
    expect(item.revision).toBeGreaterThan(served.revision);
    expect(compact([item])[0]).toMatchObject({
      ht: { Ringing: 20, Connected: 300, Wrap: 60, HeldExternalParty: 60 },
      offered: { Unexpected: 1 },
    });

    // The same late event again changes nothing (redelivery is not double-counted).
    const before = (await get(shift)).body.items;
    await publish([agent.segmentEnded(at(24), at(24, 20), 'Ringing', c2, 'Unexpected')]);
    await caughtUp();
    const after = await get(shift);
    expect(compact(after.body.items)).toEqual(compact(before));
    expect(after.body.items.map((i) => i.revision)).toEqual(before.map((i) => i.revision));

    // Paging and the agent filter.
    const page2 = await get(`${shift}&limit=2&page=2&agentId=${agent.agentId}`);
    expect(page2.body.meta).toEqual({ page: 2, count: 1, pageCount: 2, totalCount: 3 });
    expect(page2.body.items[0]?.timestamp).toBe(at(0));
    expect((await get(`${shift}&agentId=someone-else`)).body.items).toEqual([]);

    // A restart loads the same summaries from the store.
    await service.stop();
    service = await start();
    const reloaded = await eventually(() => get(shift), {
      accept: (r) => r.status === 200,
      what: 'the restarted service',
    });
    expect(compact(reloaded.body.items)).toEqual(compact(after.body.items));
    expect(reloaded.body.items.map((i) => i.revision)).toEqual(after.body.items.map((i) => i.revision));

    // Closed intervals stay closed after the restart (their keys were stored as deltas by several batches): late
    // start events of the wrap (first batch) and of the missed ring (a later one) reopen nothing.
    await publish([agent.segmentStarted(at(20), 'Wrap', c1), agent.segmentStarted(at(24), 'Ringing', c2)]);
    await caughtUp();
    const still = await get(shift);
    expect(compact(still.body.items)).toEqual(compact(after.body.items));
    expect(still.body.items.map((i) => i.revision)).toEqual(after.body.items.map((i) => i.revision));
  });
});
