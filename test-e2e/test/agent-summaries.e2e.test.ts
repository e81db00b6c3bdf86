import { randomUUID } from 'node:crypto';
import { type Consumer, Kafka, logLevel, type Producer } from 'kafkajs';
import {
  type AgentInteraction,
  type AgentRef,
  ContactCenter,
  dispatch,
  type Problem,
} from '../src/contact-center.scenario';
import { expectStatus, uniqueSuffix } from '../src/gateway.client';
import { until } from '../src/until';

// Issue 16 through the gateway: an agent's shift driven by the agent desktop and Invoke APIs, then its
// 15-minute summaries read with a `stats` token and checked to the second against a hand calculation
// from the agent-activity events routing published (read from Kafka, as a subscribing team would).

const activityTopic = 'cc.agent-activity.v1';
const periodMs = 15 * 60_000;
const periodOf = (t: number) => t - (t % periodMs);

interface ActivityEvent {
  id: string;
  type: string;
  accountid: string;
  data: {
    agentId: string;
    occurredAt: string;
    sequence: number;
    presence?: string;
    previous?: { presence: string; startedAt: string; durationMs: number } | null;
    segment?: string;
    startedAt?: string;
    endedAt?: string;
    outcome?: string | null;
    channel?: { guid: string };
    interaction?: Record<string, unknown>;
  };
}

interface Item {
  agentId: string;
  timestamp: string;
  revision: number;
  interactions: {
    handleTime: { type: string; totalTime: number; inbound: number; outbound: number; internal: number }[];
    offered: { type: string; count: number; inbound: number; outbound: number; internal: number }[];
    actions: { type: string; count: number; inbound: number; outbound: number; internal: number }[];
  };
  presence: { states: { type: string; totalTime: number; count: number }[] };
}

interface Page {
  meta: { page: number; count: number; pageCount: number; totalCount: number };
  items: Item[];
  upTo: string;
  cadence: number;
}

/**
 * The hand calculation: every interval the events describe, its time split at 15-minute boundaries
 * (open ones up to `upTo`), counts where the rules put them, seconds rounded down. Written apart from
 * the service's code on purpose.
 */
function expectedSummaries(events: ActivityEvent[], upTo: number): Record<string, unknown>[] {
  const ms = new Map<number, Record<string, number>>();
  const add = (p: number, k: string, v: number) => {
    const b = ms.get(p) ?? {};
    b[k] = (b[k] ?? 0) + v;
    ms.set(p, b);
  };
  const spread = (key: string, start: number, end: number, only?: (p: number) => boolean) => {
    for (let p = periodOf(start); p < end; p += periodMs) {
      if (!only || only(p)) add(p, key, Math.min(end, p + periodMs) - Math.max(start, p));
    }
  };
  const presences = events.filter((e) => e.type === 'agent-activity.presence-changed');
  for (const e of presences) {
    const at = Date.parse(e.data.occurredAt);
    add(periodOf(at), `n:${e.data.presence}`, 1);
    const prev = e.data.previous;
    if (prev) {
      const start = Date.parse(prev.startedAt);
      const end = start + prev.durationMs;
      const loggedOutOnly = (p: number) => p === periodOf(start) || p === periodOf(end);
      spread(`t:${prev.presence}`, start, end, prev.presence === 'LoggedOut' ? loggedOutOnly : undefined);
    }
  }
  const last = presences.at(-1) as ActivityEvent;
  const lastAt = Date.parse(last.data.occurredAt);
  spread(
    `t:${last.data.presence}`,
    lastAt,
    upTo,
    last.data.presence === 'LoggedOut' ? (p) => p === periodOf(lastAt) : undefined,
  );
  for (const e of events.filter((x) => x.type === 'agent-activity.segment-ended')) {
    const start = Date.parse(e.data.startedAt as string);
    const end = Date.parse(e.data.endedAt as string);
    spread(`h:${e.data.segment}`, start, end);
    if (e.data.segment === 'HeldExternalParty') add(periodOf(start), 'hold', 1);
    if (e.data.segment === 'Ringing' && e.data.outcome) add(periodOf(end), `o:${e.data.outcome}`, 1);
  }
  const s = (n: number | undefined) => Math.floor((n ?? 0) / 1000);
  return [...ms.entries()]
    .sort(([a], [b]) => b - a)
    .map(([p, b]) => ({
      timestamp: new Date(p).toISOString(),
      handleTime: ['Ringing', 'Connected', 'Wrap', 'HeldExternalParty'].map((type) => ({
        type,
        totalTime: s(b[`h:${type}`]),
        inbound: s(b[`h:${type}`]),
        outbound: 0,
        internal: 0,
      })),
      offered: ['Answered', 'Unexpected', 'Failed'].map((type) => ({
        type,
        count: b[`o:${type}`] ?? 0,
        inbound: b[`o:${type}`] ?? 0,
        outbound: 0,
        internal: 0,
      })),
      actions: b.hold ? [{ type: 'HoldExternalParty', count: b.hold, inbound: b.hold, outbound: 0, internal: 0 }] : [],
      states: ['Ready', 'Away', 'ExtendedAway', 'LoggedOut']
        .filter((type) => b[`t:${type}`] || b[`n:${type}`])
        .map((type) => ({ type, totalTime: s(b[`t:${type}`]), count: b[`n:${type}`] ?? 0 })),
    }));
}

const view = (items: Item[]) =>
  items.map((i) => ({
    timestamp: i.timestamp,
    handleTime: i.interactions.handleTime,
    offered: i.interactions.offered,
    actions: i.interactions.actions,
    states: i.presence.states,
  }));

let cc: ContactCenter;
let alice: AgentRef;
let kafka: Kafka;
let watcher: Consumer;
let producer: Producer;
const seen: ActivityEvent[] = [];
const seenIds = new Set<string>();

beforeAll(async () => {
  cc = await ContactCenter.setup('summaries');
  alice = cc.alice;
  await cc.register({ release: 1, hold: 1 });
  kafka = new Kafka({
    clientId: 'e2e-summaries',
    brokers: (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(','),
    logLevel: logLevel.NOTHING,
  });
  watcher = kafka.consumer({ groupId: `cc-e2e.summaries-watch-${uniqueSuffix()}` });
  await watcher.connect();
  const joined = new Promise<void>((r) => watcher.on(watcher.events.GROUP_JOIN, () => r()));
  await watcher.subscribe({ topic: activityTopic, fromBeginning: false });
  await watcher.run({
    eachMessage: async ({ message }) => {
      const e = JSON.parse(message.value?.toString() ?? '{}') as ActivityEvent;
      // Delivery is at least once (a rebalance re-delivers, a publisher may retry): one event per id, as consumers do.
      if (e.accountid === cc.tenant.accountId && !seenIds.has(e.id)) {
        seenIds.add(e.id);
        seen.push(e);
      }
    },
  });
  await joined;
  producer = kafka.producer();
  await producer.connect();
});

afterAll(async () => {
  await watcher?.disconnect();
  await producer?.disconnect();
  await cc?.close();
});

const summaries = (query: string) =>
  cc.tenant.api<Page & Problem>('stats', { method: 'GET', path: `/stats/wfm/agent-summaries?${query}` });

/** An API call whose effect happened between sending and answering: [before, after] in epoch ms. */
async function timed<T>(run: () => Promise<T>): Promise<{ value: T; before: number; after: number }> {
  const before = Date.now();
  const value = await run();
  return { value, before, after: Date.now() };
}

describe('agent summaries through the gateway', () => {
  it('answers 403 SUMMARIES.FEATURE_DISABLED until the account enables summaries, then 200', async () => {
    const off = await summaries(`start=${new Date(Date.now() - 3_600_000).toISOString()}`);
    expect(off.status).toBe(403);
    expect(off.body.code).toBe('SUMMARIES.FEATURE_DISABLED');
    await cc.ok('admin', 'PATCH', '/admin/account/feature-flags', 200, { agentSummaries: true });
    const on = await until(
      async () => {
        const r = await summaries(`start=${new Date(Date.now() - 3_600_000).toISOString()}`);
        return r.status === 200 ? r : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 250, what: 'summaries enabled' },
    );
    expect(on.body).toMatchObject({ cadence: 15, items: [], meta: { totalCount: 0 } });
    const bad = await summaries(`start=${new Date().toISOString()}&cadence=60`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ pointer: '/query/cadence' })]);
  });

  it("sums alice's shift to the second: log in, an answered offer with a hold, wrap, a rejected offer, Away, log out", async () => {
    const ready = await timed(() =>
      cc.ok<{ since: string }>('agent', 'PUT', `/agent-desktop/agents/${alice.agentId}/presence`, 200, {
        presence: 'Ready',
      }),
    );
    const [first] = await cc.invoke([dispatch(randomUUID(), `sum-1-${uniqueSuffix()}`)]);
    const offer1 = await cc.offerOf(alice, first?.interactionId as string);
    // The offer lists as soon as alice's capacity is reserved; accepting waits for its write on the interaction.
    const accepted = await until(
      async () => {
        const r = await cc.tenant.api<AgentInteraction>('agent', {
          method: 'POST',
          path: `/agent-desktop/agents/${alice.agentId}/offers/${offer1.offerId}/accept`,
        });
        return r.status === 200 ? r.body : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 100, what: 'the offer accepted' },
    );
    const held = expectStatus(await cc.act(alice, offer1.interactionId, 'hold'), 200, 'hold');
    // Released while held: the hold, Connected and the start of Wrap share one exact instant.
    const wrap = expectStatus(await cc.act(alice, offer1.interactionId, 'release'), 200, 'release');
    const endWrap = await timed(() => cc.act(alice, offer1.interactionId, 'end-wrap'));
    expectStatus(endWrap.value, 204, 'end-wrap');
    const externalId = `sum-2-${uniqueSuffix()}`;
    const [second] = await cc.invoke([dispatch(randomUUID(), externalId)]);
    const offer2 = await cc.offerOf(alice, second?.interactionId as string);
    const reject = await timed(() =>
      until(
        async () => {
          const r = await cc.tenant.api('agent', {
            method: 'POST',
            path: `/agent-desktop/agents/${alice.agentId}/offers/${offer2.offerId}/reject`,
          });
          return r.status === 200 || r.status === 204 ? r : undefined;
        },
        { timeoutMs: 45_000, intervalMs: 100, what: 'the offer rejected' },
      ),
    );
    const away = await cc.ok<{ since: string }>(
      'agent',
      'PUT',
      `/agent-desktop/agents/${alice.agentId}/presence`,
      200,
      {
        presence: 'Away',
      },
    );
    // The rejected interaction may be offered to alice again before Away: releasing it withdraws that ring.
    await cc.invoke([{ action: 'release', requestId: randomUUID(), externalId }]);
    const loggedOut = await until(
      async () => {
        const r = await cc.tenant.api<{ since: string } & Problem>('agent', {
          method: 'PUT',
          path: `/agent-desktop/agents/${alice.agentId}/presence`,
          json: { presence: 'LoggedOut' },
        });
        return r.status === 200 ? r.body : undefined;
      },
      { timeoutMs: 45_000, intervalMs: 200, what: 'alice logged out (no interaction left)' },
    );

    // The events routing published for alice, up to the log-out.
    const logoutAt = Date.parse(loggedOut.since);
    await until(() => seen.some((e) => e.data.presence === 'LoggedOut' && e.data.agentId === alice.agentId), {
      timeoutMs: 45_000,
      intervalMs: 200,
      what: "alice's LoggedOut event",
    });
    const events = seen
      .filter((e) => e.data.agentId === alice.agentId)
      .sort((a, b) => a.data.sequence - b.data.sequence);
    const at = (type: string, pick: (e: ActivityEvent) => boolean) =>
      events.filter((e) => e.type === type && pick(e)).map((e) => e.data.occurredAt);
    // The timeline the events tell is the one the API answered, to the millisecond where the API shows times.
    expect(at('agent-activity.presence-changed', (e) => e.data.presence === 'Ready')).toEqual([ready.value.since]);
    expect(
      at('agent-activity.segment-started', (e) => e.data.segment === 'Ringing' && e.data.channel !== undefined).at(0),
    ).toBe(offer1.offeredAt);
    expect(at('agent-activity.segment-started', (e) => e.data.segment === 'Connected')).toEqual([accepted.since]);
    expect(at('agent-activity.segment-started', (e) => e.data.segment === 'HeldExternalParty')).toEqual([
      held.body.since,
    ]);
    expect(at('agent-activity.segment-ended', (e) => e.data.segment === 'HeldExternalParty')).toEqual([
      wrap.body.since,
    ]);
    expect(at('agent-activity.presence-changed', (e) => e.data.presence === 'Away')).toEqual([away.since]);
    const wrapEnd = Date.parse(at('agent-activity.segment-ended', (e) => e.data.segment === 'Wrap')[0] as string);
    expect(wrapEnd).toBeGreaterThanOrEqual(endWrap.before - 5);
    expect(wrapEnd).toBeLessThanOrEqual(endWrap.after + 5);
    const unexpected = events.filter((e) => e.data.outcome === 'Unexpected');
    expect(unexpected).toHaveLength(1);
    const rejectedAt = Date.parse((unexpected[0] as ActivityEvent).data.endedAt as string);
    expect(rejectedAt).toBeGreaterThanOrEqual(reject.before - 5);
    expect(rejectedAt).toBeLessThanOrEqual(reject.after + 5);

    // Through the gateway, once the watermark passed the log-out: exactly the hand calculation.
    const start = new Date(Date.parse(ready.value.since) - 1).toISOString();
    const end = new Date(logoutAt + 1000).toISOString();
    const page = await until(
      async () => {
        const r = await summaries(`start=${start}&end=${end}`);
        return r.status === 200 && r.body.upTo === end ? r.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'upTo past the log-out' },
    );
    // bob never logged in: only alice appears.
    expect(new Set(page.items.map((i) => i.agentId))).toEqual(new Set([alice.agentId]));
    expect(view(page.items)).toEqual(expectedSummaries(events, logoutAt + 1000));
    expect(page.meta).toEqual({ page: 1, count: page.items.length, pageCount: 1, totalCount: page.items.length });
    const totals = (type: string) =>
      page.items.reduce((n, i) => n + (i.interactions.offered.find((o) => o.type === type)?.count ?? 0), 0);
    expect([totals('Answered'), totals('Unexpected')]).toEqual([1, 1]);
    expect(page.items.reduce((n, i) => n + (i.interactions.actions[0]?.count ?? 0), 0)).toBe(1);

    // A late event (as from a producer that was down): a failed ring at the start of the shift, published
    // after the watermark passed it. The served summary is recomputed, its revision grows, and
    // revisedSince finds it.
    const now = await summaries(`start=${start}`);
    const servedUpTo = now.body.upTo;
    const readyAt = Date.parse(ready.value.since);
    const servedItem = page.items.find((i) => i.timestamp === new Date(periodOf(readyAt)).toISOString()) as Item;
    const channel = randomUUID();
    const late = {
      specversion: '1.0',
      id: randomUUID(),
      source: '/cc/routing',
      type: 'agent-activity.segment-ended',
      time: new Date(readyAt + 3000).toISOString(),
      subject: alice.agentId,
      accountid: cc.tenant.accountId,
      datacontenttype: 'application/json',
      data: {
        agentId: alice.agentId,
        agentUsername: alice.username,
        occurredAt: new Date(readyAt + 3000).toISOString(),
        sequence: (events.at(-1)?.data.sequence ?? 0) + 1,
        segment: 'Ringing',
        startedAt: new Date(readyAt + 1000).toISOString(),
        endedAt: new Date(readyAt + 3000).toISOString(),
        durationMs: 2000,
        status: 'Completed',
        interaction: {
          guid: channel,
          medium: 'Phone',
          mediumManager: 'CC',
          direction: 'Inbound',
          interactionType: 'live',
        },
        channel: { guid: channel },
        outcome: 'Failed',
      },
    };
    await producer.send({
      topic: activityTopic,
      messages: [{ key: `${cc.tenant.accountId}:${alice.agentId}`, value: JSON.stringify(late) }],
    });
    const revised = await until(
      async () => {
        const r = await summaries(`start=${start}&end=${end}&revisedSince=${servedUpTo}`);
        return r.status === 200 && r.body.items.length > 0 ? r.body : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'the revised summary' },
    );
    expect(revised.items.map((i) => i.timestamp)).toEqual([servedItem.timestamp]);
    const item = revised.items[0] as Item;
    expect(item.revision).toBeGreaterThan(servedItem.revision);
    expect(view([item])).toEqual(
      expectedSummaries([...events, late as unknown as ActivityEvent], logoutAt + 1000).filter(
        (x) => x.timestamp === servedItem.timestamp,
      ),
    );
    expect(item.interactions.offered.find((o) => o.type === 'Failed')?.count).toBe(
      (servedItem.interactions.offered.find((o) => o.type === 'Failed')?.count ?? 0) + 1,
    );
  });
});
