import { randomUUID } from 'node:crypto';
import {
  agentActivitiesResponse,
  statsInteractionsResponse,
  v0AgentStatesResponse,
  v0InboundCallsResponse,
  v0OutboundCallsResponse,
} from '@cc/contracts';
import { eventually } from '@cc/testing';
import { agentActivityScript } from '../builders/agent-activity-events';
import { defined, InteractionEvents, ids } from '../builders/interaction-events';
import { expectShape, StatisticsHarness } from '../support/harness';

const window = 'start=2024-05-01T07:00:00Z&end=2024-05-01T09:00:00Z';
const call = () =>
  new InteractionEvents()
    .queued(0)
    .applet(0, 'CallRecording', 'Record')
    .applet(0, 'Announcement', 'Welcome', 3000)
    .offered(5000, 'A', ids.channelA)
    .queueLeft(6000, 3000, 'Delivered')
    .assigned(6000, 'A', ids.channelA, 1000)
    .held(20_000, 'A', ids.channelA)
    .retrieved(30_000, 'A', ids.channelA, 10_000)
    .wrapStarted(66_000, 'A', ids.channelA, 60_000)
    .released(66_000, 'agent', 'A', ids.channelA)
    .wrapEnded(70_000, 'A', ids.channelA, 4000).events;

let h: StatisticsHarness;
const account = `acc-${randomUUID()}`;
const other = `acc-${randomUUID()}`;
const accountKey = `key${randomUUID().slice(0, 8)}`;
const testStart = new Date(Date.now() - 1000).toISOString();

async function publishAll() {
  await h.publish('cc.interaction.v1', account, ids.interaction, call());
  await h.publish('cc.agent-activity.v1', account, ids.agentA, agentActivityScript());
}

beforeAll(async () => {
  h = await StatisticsHarness.create();
  await h.start();
  await publishAll();
});

afterAll(async () => {
  await h?.close();
});

describe('statistics from real topics to HTTP', () => {
  it('serves the interaction record with every field of the contract', async () => {
    const token = await h.statsToken(account);
    const res = await eventually(() => h.get(`/stats/interactions?${window}`, token), {
      what: 'the completed record',
      timeoutMs: 100_000,
      accept: (r) => r.body?.items?.[0]?.status === 'Completed',
    });
    expect(res.status).toBe(200);
    expectShape(statsInteractionsResponse, res.body);
    expect(res.body.meta).toEqual({ page: 1, count: 1, pageCount: 1, totalCount: 1 });
    const [record] = res.body.items;
    expect(record).toMatchObject({
      guid: ids.interaction,
      start: '2024-05-01T08:00:00.000Z',
      duration: 66_000,
      serviceName: 'sales',
    });
    expect(record.channels.map((c: { party: { role: string } }) => c.party.role)).toEqual(['External', 'Agent']);
    expect(record.channels[1].events.map((e: { type: string }) => e.type)).toEqual([
      'Ringing',
      'Connected',
      'CallRecording',
      'Held',
      'Wrap',
    ]);
    expect(res.body.upTo).toBe('2024-05-01T09:00:00.000Z');
  }, 120_000);

  it('serves the agent activities, consistent with the record', async () => {
    const token = await h.statsToken(account);
    const res = await eventually(() => h.get(`/stats/agent-activities?${window}&limit=5000`, token), {
      what: 'closed activities',
      timeoutMs: 100_000,
      accept: (r) => r.body?.items?.filter((i: { status: string }) => i.status === 'Completed').length === 3,
    });
    expectShape(agentActivitiesResponse, res.body);
    const byType = (t: string) => res.body.items.filter((i: { type: string }) => i.type === t);
    expect(byType('Presence')).toHaveLength(1);
    expect(byType('Workload').map((w: { workload: { calls: number } }) => w.workload.calls)).toEqual([0, 1, 0]);
    const connected = res.body.items.find((i: { category: string }) => i.category === 'Connected');
    expect(connected).toMatchObject({
      agentId: ids.agentA,
      start: '2024-05-01T08:00:06.000Z',
      duration: 60_000,
      status: 'Completed',
      interaction: { guid: ids.interaction, medium: 'Phone', mediumManager: 'CC', direction: 'Inbound' },
      channel: { guid: ids.channelA },
    });
    const filtered = await h.get(
      `/stats/agent-activities?${window}&type=Interaction&agentId=${ids.agentA}&limit=2&page=2`,
      token,
    );
    expect(filtered.body.meta).toEqual({ page: 2, count: 1, pageCount: 2, totalCount: 3 });
    expect(filtered.body.items[0].category).toBe('Wrap');
  }, 120_000);

  it('serves the same call through the deprecated v0 endpoints with deprecation headers', async () => {
    const token = await h.v0Token(account, accountKey);
    const v0 = `start=2024-05-01T07:00:00Z&end=2024-05-01T09:00:00Z`;
    const states = await h.get(`/v0/${accountKey}/statistics/agentstates?${v0}`, token, 'application/json; version=2');
    expect(states.status).toBe(200);
    expectShape(v0AgentStatesResponse, states.body);
    expect(states.body.stats.find((s: { state: string }) => s.state === 'Busy Inbound')).toMatchObject({
      callGuid: ids.interaction,
      duration: '00:01:00',
      stateChangedAt: '2024-05-01T08:00:06.000Z',
    });
    expect(states.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(states.headers.get('sunset')).toMatch(/GMT$/);
    expect(states.headers.get('link')).toContain('</stats/agent-activities>; rel="successor-version"');

    const inbound = await h.get(`/v0/${accountKey}/statistics/inboundcalls?${v0}`, token);
    expectShape(v0InboundCallsResponse, inbound.body);
    expect(inbound.body.calls.map((c: { event: string }) => c.event)).toEqual([
      'Start',
      'NewApplet',
      'NewApplet',
      'Queue',
      'ACDDelivery',
      'End',
    ]);
    expect(inbound.headers.get('link')).toContain('</stats/interactions>');
    const outbound = await h.get(`/v0/${accountKey}/statistics/outboundcalls?${v0}`, token);
    expectShape(v0OutboundCallsResponse, outbound.body);
    expect(outbound.body).toEqual({ count: 0, calls: [] });

    const latest = await h.get(`/v0/${accountKey}/statistics/inboundcalls?latest=true`, token);
    expect(latest.status).toBe(200);
  });

  it('isolates accounts: another token, account key or v0 key sees nothing', async () => {
    const otherStats = await h.get(`/stats/interactions?${window}`, await h.statsToken(other));
    expect(otherStats.body.items).toEqual([]);
    const foreignKey = await h.get(
      `/v0/${accountKey}/statistics/agentstates?latest=true`,
      await h.v0Token(other, 'someone-else'),
    );
    expect(foreignKey.status).toBe(403);
    expect(foreignKey.headers.get('deprecation')).toMatch(/^@/);
    const otherV0 = await h.get(
      `/v0/otherkey/statistics/agentstates?start=2024-05-01T07:00:00Z&end=2024-05-01T09:00:00Z`,
      await h.v0Token(other, 'otherkey'),
    );
    expect(otherV0.body).toEqual({ count: 0, stats: [] });
  });

  it('refuses bad input with precise 4xx problems', async () => {
    const token = await h.statsToken(account);
    const long = await h.get('/stats/interactions?start=2024-01-01T00:00:00Z&end=2024-03-01T00:00:00Z', token);
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([{ pointer: '/query/end', message: expect.stringContaining('31 days') }]);
    const missing = await h.get('/stats/agent-activities', token);
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0].pointer).toBe('/query/start');
    expect((await h.get(`/stats/interactions?${window}`, null)).status).toBe(401);
    expect((await h.get(`/stats/interactions?${window}`, token, 'application/vnd.newvoicemedia.v2+json')).status).toBe(
      406,
    );

    const v0 = await h.v0Token(account, accountKey);
    const tooLong = await h.get(
      `/v0/${accountKey}/statistics/agentstates?start=2024-05-01T00:00:00Z&end=2024-05-02T02:00:00Z`,
      v0,
    );
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors[0]).toEqual({ pointer: '/query/end', message: expect.stringContaining('25 hours') });
    const both = await h.get(`/v0/${accountKey}/statistics/agentstates?interval=5&latest=true`, v0);
    expect(both.status).toBe(400);
    expect((await h.get(`/v0/${accountKey}/statistics/agentstates`, v0)).status).toBe(400);
    expect((await h.get(`/v0/${accountKey}/statistics/agentstates?interval=5`, token)).status).toBe(401);
    expect((await h.get(`/stats/interactions?${window}`, v0)).status).toBe(401);
    expect(
      (await h.get(`/v0/${accountKey}/statistics/agentstates?interval=5`, v0, 'application/json; version=1')).status,
    ).toBe(406);
  });

  it('is idempotent on redelivery and finds records by the time they were written (include=Processed)', async () => {
    // Everything of the first publication is written by now (the tests above read it back).
    const firstPass = h.service?.consumer.written ?? 0;
    expect(firstPass).toBeGreaterThan(0);
    await publishAll(); // same data, new event ids: past the deduper, onto the natural keys
    const token = await h.statsToken(account);
    const processed = `start=${testStart}&include=Processed&limit=5000`;
    await eventually(() => h.service?.consumer.written ?? 0, {
      accept: (n) => n >= 2 * firstPass,
      timeoutMs: 100_000,
      what: 'the redelivered batch written',
    });
    const records = await h.get(`/stats/interactions?${processed}`, token);
    expect(records.body.meta.totalCount).toBe(1);
    const activities = await h.get(`/stats/agent-activities?${processed}`, token);
    expect(activities.body.meta.totalCount).toBe(7);
    const startedOrEnded = await h.get(
      '/stats/agent-activities?start=2024-05-01T08:01:00Z&end=2024-05-01T08:02:00Z&include=StartedOrEnded',
      token,
    );
    expect(startedOrEnded.body.items.map((i: { category: string | null }) => i.category)).toEqual([
      null,
      'Connected',
      'Wrap',
      null,
    ]);
  }, 120_000);

  it('deletes records older than the retention by bounded deletes', async () => {
    const repo = defined(h.service).repo;
    const deleted = await repo.expire(Date.parse('2024-05-01T10:00:00Z'), 100_000);
    expect(deleted).toBeGreaterThan(0);
    const token = await h.statsToken(account);
    expect((await h.get(`/stats/interactions?${window}`, token)).body.items).toEqual([]);
    expect((await h.get(`/stats/agent-activities?${window}`, token)).body.items).toEqual([]);
  });
});
