import {
  agentActivitiesResponse,
  bodyValidator,
  type JsonSchema,
  statsInteractionsResponse,
  v0AgentStatesResponse,
  v0InboundCallsResponse,
  v0OutboundCallsResponse,
} from '@cc/contracts';
import { ContactCenter, dispatch, type InvokeResult } from '../src/contact-center.scenario';
import { type ApiResponse, call, createTenant, expectStatus, type Tenant } from '../src/gateway.client';
import { until } from '../src/until';

// Issue 17: calls driven through Invoke, the agent desktop and release, then read back through the gateway from
// both statistics APIs and the three deprecated v0 endpoints, cross-checked, with tenant isolation.

interface Channel {
  guid: string;
  offset: number;
  duration: number;
  endReason: string | null;
  party: { id: string | null; role: string; touchpoint: string | null };
  events: {
    type: string;
    offset: number;
    name: string | null;
    duration: number;
    properties: Record<string, unknown> | null;
  }[];
}
interface RecordItem {
  guid: string;
  status: string;
  start: string;
  duration: number;
  direction: string;
  serviceName: string | null;
  connectFrom: string | null;
  channels: Channel[];
  [field: string]: unknown;
}
interface Activity {
  agentId: string;
  type: string;
  category: string | null;
  name: string | null;
  start: string;
  status: string | null;
  duration: number;
  interaction: { guid: string } | null;
  channel: { guid: string | null } | null;
  workload: { calls: number; nonLive: number } | null;
}
interface Page<T> {
  meta: { page: number; count: number; pageCount: number; totalCount: number };
  items: T[];
  upTo: string;
}

const v0Accept = { accept: 'application/json; version=2' };
const since = new Date(Date.now() - 60_000).toISOString();

function expectContract(schema: JsonSchema, body: unknown, what: string): void {
  const result = bodyValidator(schema)(structuredClone(body));
  if (!result.ok) throw new Error(`${what} breaks the contract: ${JSON.stringify(result.errors)}`);
}

let cc: ContactCenter;
let other: Tenant;
let answered: InvokeResult;
let releasedInQueue: InvokeResult;
let v0: { accountKey: string; token: string };
let otherV0: { accountKey: string; token: string };

async function v0Credentials(t: Tenant): Promise<{ accountKey: string; token: string }> {
  const created = expectStatus(
    await t.api<{ accountKey: string; apiToken: string }>('admin', { method: 'POST', path: '/admin/v0-credentials' }),
    201,
    'v0 credentials',
  ).body;
  const token = expectStatus(
    await call<{ access_token: string }>({
      method: 'POST',
      path: '/v0/oauth2/token',
      headers: {
        authorization: `Basic ${Buffer.from(`${created.accountKey}:${created.apiToken}`).toString('base64')}`,
      },
    }),
    200,
    'v0 token',
  ).body.access_token;
  return { accountKey: created.accountKey, token };
}

function v0Get<T>(who: { token: string }, accountKey: string, name: string, query: string): Promise<ApiResponse<T>> {
  return call<T>({
    method: 'GET',
    path: `/v0/${accountKey}/statistics/${name}?${query}`,
    token: who.token,
    headers: v0Accept,
  });
}

beforeAll(async () => {
  cc = await ContactCenter.setup('stats');
  other = await createTenant('stats-other');
  await cc.register({ release: 1, hold: 1 });
  [v0, otherV0] = await Promise.all([v0Credentials(cc.tenant), v0Credentials(other)]);
});

afterAll(async () => {
  await cc?.close();
});

describe('statistics through the gateway: agent activities, interaction records and the v0 endpoints agree', () => {
  it('drives a call through Invoke, offer, accept, hold, retrieve, release and wrap, and one released by API while queued', async () => {
    await cc.presence(cc.alice, 'Ready');
    [answered] = (await cc.invoke([
      {
        ...dispatch('stats-1', 'stats-ext-1'),
        linkeddata: [
          { type: 'clid', value: '+441234567890' },
          { type: 'interactionproperty', key: 'Priority', value: 'High' },
        ],
      },
    ])) as [InvokeResult];
    const offer = await cc.offerOf(cc.alice, answered.interactionId as string);
    // The offer can be listed a moment before the agent's work records it: poll the accept with a deadline.
    await until(
      async () => {
        const res = await cc.tenant.api('agent', {
          method: 'POST',
          path: `/agent-desktop/agents/${cc.alice.agentId}/offers/${offer.offerId}/accept`,
        });
        return res.status === 200 ? res : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 300, what: `alice accepting ${offer.offerId}` },
    );
    await cc.handle(cc.alice, answered.interactionId as string, true);

    await cc.presence(cc.alice, 'Away');
    [releasedInQueue] = (await cc.invoke([dispatch('stats-2', 'stats-ext-2')])) as [InvokeResult];
    const released = await cc.invokeOnce({
      provider: cc.provider,
      requests: [{ action: 'release', externalId: 'stats-ext-2' }],
    });
    expectStatus(released, 202, 'release by API');
  });

  it('serves both interaction records with every field of the contract', async () => {
    const page = await until(
      async () => {
        const res = await cc.tenant.api<Page<RecordItem>>('stats', {
          method: 'GET',
          path: `/stats/interactions?start=${since}&include=StartedOrEnded`,
        });
        const done = res.body.items?.filter((r) => r.status === 'Completed') ?? [];
        return done.length === 2 ? res : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: 'two completed interaction records' },
    );
    expect(page.status).toBe(200);
    expectContract(statsInteractionsResponse, page.body, 'GET /stats/interactions');
    const call1 = page.body.items.find((r) => r.guid === answered.interactionId) as RecordItem;
    expect(call1).toMatchObject({
      status: 'Completed',
      medium: 'ApiObject', // no interactiontype in the dispatch: nonlive
      mediumManager: 'CC',
      direction: 'Inbound',
      serviceName: cc.route,
      connectFrom: '+441234567890',
    });
    expect(call1.conversationGuid).toEqual(expect.any(String));
    expect(call1.interactionPlanMapping).toEqual({
      addressName: cc.route,
      mappingName: cc.route,
      interactionPlanName: 'Support Plan',
    });
    const [external, agent] = call1.channels as [Channel, Channel];
    expect(external.party.role).toBe('External');
    expect(external.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['InteractionPlan', 'Applet', 'DataSourceValueAcquired', 'Queue']),
    );
    expect(external.events.find((e) => e.type === 'InteractionPlan')?.properties).toEqual({ reportingGroup: 'E2E' });
    expect(external.events.find((e) => e.type === 'DataSourceValueAcquired')).toMatchObject({
      name: 'Priority',
      properties: { value: 'High' },
    });
    expect(external.events.find((e) => e.type === 'Queue')?.properties).toMatchObject({
      interactionPlan: 'Support Plan',
      virtualQueues: ['Support'],
      result: 'Delivered',
    });
    expect(agent).toMatchObject({
      endReason: 'Released',
      party: { id: cc.alice.agentId, role: 'Agent', touchpoint: cc.alice.username },
    });
    expect(agent.events.map((e) => e.type)).toEqual(['Ringing', 'Connected', 'Held', 'Wrap']);
    const call2 = page.body.items.find((r) => r.guid === releasedInQueue.interactionId) as RecordItem;
    expect(call2.channels).toHaveLength(1);
    expect(call2.channels[0]?.events.find((e) => e.type === 'Queue')?.properties).toMatchObject({ result: 'Released' });
  });

  it('serves the agent activities of the same call, consistent with its record', async () => {
    const guid = answered.interactionId as string;
    const page = await until(
      async () => {
        const res = await cc.tenant.api<Page<Activity>>('stats', {
          method: 'GET',
          path: `/stats/agent-activities?start=${since}&agentId=${cc.alice.agentId}&limit=5000`,
        });
        const segs = res.body.items?.filter((a) => a.interaction?.guid === guid && a.status === 'Completed') ?? [];
        return segs.length === 3 ? res : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500, what: "the call's Ringing, Connected and Wrap activities" },
    );
    expectContract(agentActivitiesResponse, page.body, 'GET /stats/agent-activities');
    const record = (
      await cc.tenant.api<Page<RecordItem>>('stats', { method: 'GET', path: `/stats/interactions?start=${since}` })
    ).body.items.find((r) => r.guid === guid) as RecordItem;
    const agentChannel = record.channels[1] as Channel;
    const recordStart = Date.parse(record.start);
    for (const category of ['Ringing', 'Connected', 'Wrap']) {
      const activity = page.body.items.find((a) => a.category === category && a.interaction?.guid === guid) as Activity;
      const event = agentChannel.events.find((e) => e.type === category);
      expect(activity.channel?.guid).toBe(agentChannel.guid);
      expect(activity.duration).toBe(event?.duration);
      expect(Date.parse(activity.start)).toBe(recordStart + (event?.offset ?? -1));
    }
    expect(page.body.items.some((a) => a.type === 'Presence' && a.name === 'Ready' && a.status === null)).toBe(true);
    expect(page.body.items.some((a) => a.type === 'Workload' && a.workload?.nonLive === 1)).toBe(true);
  });

  it('serves the same calls through all three deprecated v0 endpoints, marked deprecated', async () => {
    const guid = answered.interactionId as string;
    const states = await v0Get<{
      count: number;
      stats: { state: string; callGuid?: string; duration: string; agentId: string }[];
    }>(v0, v0.accountKey, 'agentstates', 'interval=60');
    expect(states.status).toBe(200);
    expectContract(v0AgentStatesResponse, states.body, 'v0 agentstates');
    expect(states.headers.deprecation).toMatch(/^@\d+$/);
    expect(states.headers.sunset).toMatch(/GMT$/);
    expect(states.headers.link).toContain('</stats/agent-activities>; rel="successor-version"');
    const busy = states.body.stats.find((s) => s.callGuid === guid && s.state === 'Busy Inbound');
    expect(busy?.agentId).toBe(cc.alice.agentId);

    const inbound = await v0Get<{
      count: number;
      calls: { callGuid: string; event: string; sequence: number; additionalParameters?: Record<string, string> }[];
    }>(v0, v0.accountKey, 'inboundcalls', `start=${since}&end=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(inbound.status).toBe(200);
    expectContract(v0InboundCallsResponse, inbound.body, 'v0 inboundcalls');
    expect(inbound.headers.link).toContain('</stats/interactions>');
    const rows = inbound.body.calls.filter((c) => c.callGuid === guid);
    expect(rows.map((r) => r.event)).toEqual(['Start', 'NewApplet', 'NewApplet', 'Queue', 'ACDDelivery', 'End']);
    expect(rows.map((r) => r.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(rows.find((r) => r.event === 'ACDDelivery')?.additionalParameters?.agentId).toBe(cc.alice.agentId);
    expect(inbound.body.calls.some((c) => c.callGuid === releasedInQueue.interactionId && c.event === 'End')).toBe(
      true,
    );

    const outbound = await v0Get<{ count: number; calls: unknown[] }>(
      v0,
      v0.accountKey,
      'outboundcalls',
      'latest=true',
    );
    expect(outbound.status).toBe(200);
    expectContract(v0OutboundCallsResponse, outbound.body, 'v0 outboundcalls');
    // Routing places only inbound calls, so the current API has no outbound record either.
    const current = await cc.tenant.api<Page<RecordItem>>('stats', {
      method: 'GET',
      path: `/stats/interactions?start=${since}`,
    });
    expect(current.body.items.filter((r) => r.direction === 'Outbound')).toHaveLength(outbound.body.count);
  });

  it('isolates tenants: another account sees nothing of these calls, and its v0 token is refused on this account key', async () => {
    const theirs = await other.api<Page<RecordItem>>('stats', {
      method: 'GET',
      path: `/stats/interactions?start=${since}`,
    });
    expect(theirs.status).toBe(200);
    expect(theirs.body.items).toEqual([]);
    const theirActivities = await other.api<Page<Activity>>('stats', {
      method: 'GET',
      path: `/stats/agent-activities?start=${since}`,
    });
    expect(theirActivities.body.items).toEqual([]);
    const crossed = await v0Get(otherV0, v0.accountKey, 'agentstates', 'interval=60');
    expect(crossed.status).toBe(403);
    for (const name of ['agentstates', 'inboundcalls', 'outboundcalls']) {
      const own = await v0Get<{ count: number }>(otherV0, otherV0.accountKey, name, 'interval=60');
      expect(own.status).toBe(200);
      expect(own.body.count).toBe(0);
    }
    const apiTokenOnV0 = await call({
      method: 'GET',
      path: `/v0/${v0.accountKey}/statistics/agentstates?interval=60`,
      token: await cc.tenant.token('stats'),
    });
    expect(apiTokenOnV0.status).toBe(401);
  });
});
