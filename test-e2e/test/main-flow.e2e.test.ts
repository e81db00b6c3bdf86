import { eventually, throughout } from '@cc/testing';
import {
  type AgentRef,
  asyncTimeoutMs,
  ContactCenter,
  type InvokeResult,
  type Offer,
  providerHeaders,
} from '../src/contact-center.scenario';
import { expectStatus } from '../src/gateway.client';
import { verifyStandardWebhook } from '../src/provider-endpoint.server';

// The main scenario of issue 8, through the gateway only: a provider, an admin and two agent desktops.
// The steps share one contact center and run in order; each names what it proves.

const guidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let cc: ContactCenter;
let alice: AgentRef;
let bob: AgentRef;
let invokeBody: { provider: string; requests: Record<string, unknown>[] };
let results: InvokeResult[];
let dispatchedAt: number;
/** Interaction ids by role in the scenario. */
const ids: Record<string, string> = {};
const offers: Record<string, Offer> = {};

const everyLinkedDataType = [
  { type: 'clid', value: '+441234567890' },
  { type: 'name', value: 'Case 1001: printer on fire' },
  { type: 'mediatype', value: 'Email' },
  { type: 'url', label: 'Open case', value: 'https://crm.example.com/cases/1001' },
  { type: 'url', label: 'No link yet' },
  { type: 'interactionproperty', key: 'Priority', value: 'High' },
  { type: 'interactionproperty', key: 'Region', value: 'EMEA' },
];

beforeAll(async () => {
  cc = await ContactCenter.setup('main');
  alice = cc.alice;
  bob = cc.bob;
});

afterAll(async () => {
  await cc?.close();
});

describe('main flow: provider, routing, agents and notifications through the gateway', () => {
  it('registers a provider with an https endpoint, headers and limited permissions', async () => {
    const view = await cc.register({ release: 1, hold: 1, transferToAgent: 0 });
    expect(cc.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    expect(view).toMatchObject({
      provider: cc.provider,
      endpoint: cc.endpoint.url(),
      permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: false },
    });
    expect(JSON.stringify(view)).not.toContain(providerHeaders.Authorization);
    const stored = await cc.ok<Record<string, unknown>>('admin', 'GET', `/admin/providers/${cc.provider}`, 200);
    expect(stored).not.toHaveProperty('signingSecret');
    expect(stored).toMatchObject({ provider: cc.provider, headers: { Authorization: '<redacted>' } });
  });

  it('logs in two agents with different skills (Ready)', async () => {
    for (const agent of [alice, bob]) {
      await cc.presence(agent, 'Ready');
      const p = await cc.ok<{ presence: string; eligibleForRouting: boolean }>(
        'agent',
        'GET',
        `/agent-desktop/agents/${agent.agentId}/presence`,
        200,
      );
      expect(p).toMatchObject({ presence: 'Ready', eligibleForRouting: true });
    }
  });

  it('dispatches interactions (every linkeddata type, skills with and without expiry, a personal queue, one without externalId)', async () => {
    invokeBody = {
      provider: cc.provider,
      requests: [
        {
          action: 'dispatch',
          requestId: 'req-printers',
          externalId: 'case-printers',
          route: cc.route,
          linkeddata: everyLinkedDataType,
          routingdata: {
            interactiontype: 'nonlive',
            skills: [{ name: 'Printers' }, { name: 'VIP', expiryafter: 0 }],
          },
        },
        {
          requestid: 'req-billing',
          externalid: 'case-billing',
          route: cc.route,
          routingdata: { interactiontype: 'chat', skills: [{ name: 'Billing', expiryafter: 600 }] },
        },
        {
          requestId: 'req-personal',
          externalId: 'case-personal',
          route: cc.route,
          routingdata: {
            skills: [{ name: 'Printers' }],
            personalqueue: { agent: bob.username.toUpperCase(), loggedintimeout: 600, loggedouttimeout: 600 },
          },
        },
        { requestId: 'req-no-external', route: cc.route, routingdata: { skills: [{ name: 'billing' }] } },
        {
          requestId: 'req-nobody',
          externalId: 'case-nobody',
          route: cc.route,
          routingdata: { skills: [{ name: 'Spanish' }] },
        },
        {
          requestId: 'req-expiring',
          externalId: 'case-expiring',
          route: cc.route,
          routingdata: {
            skills: [
              { name: 'Spanish', expiryafter: 2 },
              { name: 'Printers', expiryafter: 0 },
            ],
          },
        },
      ],
    };
    dispatchedAt = Date.now();
    results = await cc.invoke(invokeBody.requests);
    expect(results).toHaveLength(6);
    results.forEach((r, i) => {
      expect(r).toMatchObject({ index: i, action: 'dispatch', outcome: 'queued', duplicate: false });
      expect(r.interactionId).toMatch(guidRe);
    });
    expect(results[3]?.externalId).toBeNull();
    expect(results[1]).toMatchObject({ requestId: 'req-billing', externalId: 'case-billing' });
    const names = ['printers', 'billing', 'personal', 'noExternal', 'nobody', 'expiring'];
    names.forEach((n, i) => {
      ids[n] = results[i]?.interactionId as string;
    });
  });

  it('offers each interaction to the right agent only', async () => {
    const want = { [alice.agentId]: ['printers', 'expiring'], [bob.agentId]: ['billing', 'personal', 'noExternal'] };
    for (const agent of [alice, bob]) {
      for (const role of want[agent.agentId] as string[]) offers[role] = await cc.offerOf(agent, ids[role] as string);
    }
    // Every expected offer is ringing; nothing else rings at either agent, and nobody holds the Spanish one.
    const aliceOffers = (await cc.offers(alice)).map((o) => o.interactionId).sort();
    const bobOffers = (await cc.offers(bob)).map((o) => o.interactionId).sort();
    expect(aliceOffers).toEqual([ids.printers, ids.expiring].sort());
    expect(bobOffers).toEqual([ids.billing, ids.personal, ids.noExternal].sort());

    const printers = offers.printers as Offer;
    expect(printers).toMatchObject({ interactionType: 'nonlive', route: cc.route, provider: cc.provider });
    expect(printers.linkeddata).toEqual(everyLinkedDataType);
    expect(offers.billing?.interactionType).toBe('chat');
    // The mandatory Spanish skill kept it from everyone until it expired after 2 s; then the optional
    // Printers skill ranked alice first.
    const expiring = offers.expiring as Offer & { offeredAt: string };
    expect(Date.parse(expiring.offeredAt) - dispatchedAt).toBeGreaterThanOrEqual(1900);

    const trace = await cc.ok<{ decisions: { rule: string; candidates: { excluded: string | null }[] }[] }>(
      'admin',
      'GET',
      `/admin/interactions/${ids.nobody}/trace`,
      200,
    );
    expect(trace.decisions.length).toBeGreaterThan(0);
    const last = trace.decisions.at(-1);
    expect(last?.rule).toBe('no-eligible-agent');
    expect(last?.candidates.map((c) => c.excluded).join(' ')).toMatch(/Spanish/);
  });

  it('an agent accepts; the provider receives AssignToAgent with its headers and a valid signature', async () => {
    const connected = await cc.accept(alice, offers.printers as Offer);
    expect(connected).toMatchObject({
      interactionId: ids.printers,
      externalId: 'case-printers',
      provider: cc.provider,
      state: 'connected',
      permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: false },
    });
    const { item, post } = await cc.notification(ids.printers as string, 'AssignToAgent');
    expect(post.path).toBe('/cc/notifications');
    expect(post.headers.authorization).toBe(providerHeaders.Authorization);
    expect(post.headers['x-tenant']).toBe(providerHeaders['X-Tenant']);
    expect(post.headers['content-type']).toMatch(/^application\/json/);
    expect(post.webhookId).toMatch(guidRe);
    expect(verifyStandardWebhook(cc.signingSecret, post)).toBeNull();
    // The check can fail: a changed body or another secret does not verify.
    expect(
      verifyStandardWebhook(cc.signingSecret, { ...post, raw: post.raw.replace('AssignToAgent', 'Release') }),
    ).not.toBeNull();
    expect(verifyStandardWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', post)).not.toBeNull();
    expect(post.items).toHaveLength(1);
    expect(item).toMatchObject({
      notification: 'AssignToAgent',
      objectid: ids.printers,
      notificationid: post.webhookId,
      externalId: 'case-printers',
      params: {
        AccountId: cc.tenant.accountId,
        Agent: alice.username,
        AgentId: alice.agentId,
        Provider: cc.provider,
        Route: cc.route,
        InteractionType: 'nonlive',
        RequestId: 'req-printers',
      },
    });
  });

  it('the agent holds, retrieves and releases; the provider receives Release', async () => {
    await cc.handle(alice, ids.printers as string);
    const { item, post } = await cc.notification(ids.printers as string, 'Release');
    expect(verifyStandardWebhook(cc.signingSecret, post)).toBeNull();
    expect(post.headers.authorization).toBe(providerHeaders.Authorization);
    expect(item).toMatchObject({
      notification: 'Release',
      objectid: ids.printers,
      externalId: 'case-printers',
      params: { Agent: alice.username, AgentId: alice.agentId, ReleasedBy: 'agent' },
    });
    const assigned = cc.endpoint.of(ids.printers as string, 'AssignToAgent')[0];
    expect(post.at).toBeGreaterThanOrEqual(assigned?.post.at ?? Number.POSITIVE_INFINITY);
    expect(item.notificationid).not.toBe(assigned?.item.notificationid);
    expect(await cc.interactions(alice)).not.toContainEqual(expect.objectContaining({ interactionId: ids.printers }));
  });

  it('a release by API of a queued interaction removes it', async () => {
    const [released] = await cc.invoke([
      { action: 'release', requestId: 'req-release-nobody', externalId: 'case-nobody' },
    ]);
    expect(released).toMatchObject({
      action: 'release',
      externalId: 'case-nobody',
      interactionId: ids.nobody,
      outcome: 'released',
      duplicate: false,
    });
    const [again] = await cc.invoke([{ action: 'release', requestId: 'req-release-again', externalId: 'case-nobody' }]);
    expect(again).toMatchObject({ outcome: 'not-found', interactionId: null, duplicate: false });
    // Its externalId is free again: a new dispatch with it is accepted as a new interaction.
    const [redispatched] = await cc.invoke([
      {
        requestId: 'req-nobody-again',
        externalId: 'case-nobody',
        route: cc.route,
        routingdata: { skills: [{ name: 'Spanish' }] },
      },
    ]);
    expect(redispatched?.outcome).toBe('queued');
    expect(redispatched?.interactionId).not.toBe(ids.nobody);
    ids.nobodyAgain = redispatched?.interactionId as string;
    const [cleared] = await cc.invoke([
      { action: 'release', requestId: 'req-release-nobody-2', externalId: 'case-nobody' },
    ]);
    expect(cleared).toMatchObject({ outcome: 'released', interactionId: ids.nobodyAgain });
  });

  it("refuses a forbidden transfer per the provider's permissions (403 naming the operation)", async () => {
    const connected = await cc.accept(bob, offers.billing as Offer);
    expect(connected.state).toBe('connected');
    const toAgent = await cc.act(bob, ids.billing as string, 'transfer', { agent: alice.username });
    expect(toAgent.status).toBe(403);
    expect(toAgent.contentType).toMatch(/^application\/problem\+json/);
    expect(toAgent.body.code).toBe('AGENT.ACTION_FORBIDDEN');
    expect(toAgent.body.detail ?? toAgent.body.title).toMatch(/transferToAgent/);
    const toRoute = await cc.act(bob, ids.billing as string, 'transfer', { route: cc.otherRoute });
    expect(toRoute.status).toBe(403);
    expect(toRoute.body.code).toBe('AGENT.ACTION_FORBIDDEN');
    expect(toRoute.body.detail ?? toRoute.body.title).toMatch(/transferToRoute/);
    // Nothing changed: bob still has it connected, and what the provider permits still works.
    expect(await cc.interactions(bob)).toContainEqual(
      expect.objectContaining({ interactionId: ids.billing, state: 'connected' }),
    );
    await cc.handle(bob, ids.billing as string);
    await cc.notification(ids.billing as string, 'Release');
  });

  it('completes the personal-queue interaction, the one without externalId and the expired-skill one', async () => {
    await cc.accept(bob, offers.personal as Offer);
    await cc.accept(bob, offers.noExternal as Offer);
    await cc.accept(alice, offers.expiring as Offer);
    const noExternal = await cc.notification(ids.noExternal as string, 'AssignToAgent');
    expect(noExternal.item).toMatchObject({
      externalId: null,
      params: { Agent: bob.username, RequestId: 'req-no-external' },
    });
    const personal = await cc.notification(ids.personal as string, 'AssignToAgent');
    expect(personal.item.params).toMatchObject({ Agent: bob.username, InteractionType: 'nonlive' });
    await cc.handle(bob, ids.personal as string, false);
    await cc.handle(bob, ids.noExternal as string, false);
    await cc.handle(alice, ids.expiring as string);
    const released = await cc.notification(ids.noExternal as string, 'Release');
    expect(released.item.externalId).toBeNull();
  });

  it('a duplicate Invoke with the same requestIds changes nothing', async () => {
    // What the earlier tests started has all arrived and been logged (the last Releases may still be on their way
    // after the one the previous test waited for), so the counts below change only if this Invoke does something.
    for (const id of [ids.personal, ids.expiring]) await cc.notification(id as string, 'Release');
    await eventually(() => cc.deliveries(), {
      timeoutMs: asyncTimeoutMs,
      what: 'every notification so far logged as delivered',
      accept: (all) =>
        all.every((d) => d.state === 'delivered') &&
        new Set(all.map((d) => d.deliveryId)).size === new Set(cc.endpoint.received.map((p) => p.webhookId)).size,
    });
    const before = { deliveries: (await cc.deliveries()).length, received: cc.endpoint.received.length };
    const res = expectStatus(await cc.invokeOnce(invokeBody), 202, 'duplicate Invoke');
    expect(res.body.results).toHaveLength(results.length);
    res.body.results.forEach((r, i) => {
      expect(r).toMatchObject({ index: i, interactionId: results[i]?.interactionId, duplicate: true });
    });
    // Nothing new rings, nothing new is assigned or notified: checked for longer than a new interaction takes to
    // ring alice or bob, both Ready (a check right after the answer would pass before anything could happen).
    await throughout(
      async () => ({
        offers: [...(await cc.offers(alice)), ...(await cc.offers(bob))].length,
        interactions: [...(await cc.interactions(alice)), ...(await cc.interactions(bob))].length,
        deliveries: (await cc.deliveries()).length - before.deliveries,
        received: cc.endpoint.received.length - before.received,
      }),
      {
        forMs: 3_000,
        intervalMs: 250,
        what: 'nothing new after the duplicate Invoke',
        accept: (v) => v.offers === 0 && v.interactions === 0 && v.deliveries === 0 && v.received === 0,
      },
    );
    // The same requestId with another body is a conflict, and processes nothing.
    const changed = await cc.invokeOnce({
      provider: cc.provider,
      requests: [{ requestId: 'req-printers', externalId: 'case-other', route: cc.route }],
    });
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe('INVOKE.REQUEST_ID_CONFLICT');
  });

  it('every notification arrived once per delivery, signed, and nothing was sent for the unassigned ones', async () => {
    const accepted = ['printers', 'billing', 'personal', 'noExternal', 'expiring'].map((r) => ids[r] as string);
    await cc.assertNothingLost(accepted);
    expect(cc.endpoint.of(ids.nobody as string)).toEqual([]);
    expect(cc.endpoint.of(ids.nobodyAgain as string)).toEqual([]);
  });

  it('deleting the provider makes Invoke refuse its name', async () => {
    await cc.ok('admin', 'DELETE', `/admin/providers/${cc.provider}`, 204);
    const gone = await cc.tenant.api('admin', { method: 'GET', path: `/admin/providers/${cc.provider}` });
    expect(gone.status).toBe(404);
    // Polled with an unknown route: while routing still knows the provider that is a 422 for the route,
    // with nothing processed, so the polling itself creates no interaction.
    await eventually(
      async () => {
        const r = await cc.invokeOnce({
          provider: cc.provider,
          requests: [{ requestId: `req-probe-${Date.now()}`, route: 'No such route' }],
        });
        return r.body.code === 'INVOKE.UNKNOWN_PROVIDER';
      },
      { timeoutMs: asyncTimeoutMs, intervalMs: 250, what: 'Invoke refusing the deleted provider' },
    );
    const refused = await cc.invokeOnce({
      provider: cc.provider,
      requests: [{ requestId: 'req-after-delete', externalId: 'case-late', route: cc.route }],
    });
    expect(refused.status).toBe(422);
    expect(refused.contentType).toMatch(/^application\/problem\+json/);
    expect(refused.body.code).toBe('INVOKE.UNKNOWN_PROVIDER');
    expect(refused.body.errors).toContainEqual(expect.objectContaining({ pointer: '/provider' }));
  });
});
