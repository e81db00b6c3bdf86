import { randomUUID } from 'node:crypto';
import type { CloudEvent } from '@cc/bus';
import { providerNotificationBody, validateBody } from '@cc/contracts';
import { eventually } from '@cc/testing';
import { deliveryIdFor } from '../../src/domain/notification';
import { NotifierHarness, newSigningSecret } from '../helpers/notifier-harness';
import { ProviderEndpoint } from '../helpers/provider-endpoint.server';
import { TopicRecorder } from '../helpers/topic-recorder';

jest.setTimeout(120_000);

const account = `acme-${Date.now().toString(36)}`;
let h: NotifierHarness;
let outcomes: TopicRecorder;
const endpoints: ProviderEndpoint[] = [];

async function endpoint(secret: string): Promise<ProviderEndpoint> {
  const ep = await ProviderEndpoint.start(h.tls, [secret]);
  endpoints.push(ep);
  return ep;
}

/** Waits until the notifier keeps the provider (its endpoint shows in the breakers listing). */
async function providerKnown(provider: string, accountId = account): Promise<void> {
  await eventually(
    async () => {
      const res = await h.api('GET', '/admin/breakers?limit=5000', accountId);
      return res.body.items.some((b: { provider: string }) => b.provider === provider);
    },
    { what: `provider ${provider} known`, timeoutMs: 30_000 },
  );
}

async function delivery(id: string) {
  return (await h.api('GET', `/admin/deliveries/${id}`, account)).body;
}

beforeAll(async () => {
  h = await NotifierHarness.create({
    DELIVERY_SCHEDULE: '0,200ms,400ms,800ms,1600ms,3200ms',
    BREAKER_FAILURE_THRESHOLD: '50',
    ATTEMPT_TIMEOUT_MS: '3000',
    LEASE_MS: '6000',
  });
  await h.start();
  outcomes = await TopicRecorder.start(h.kafka, ['cc.notification-delivery.v1', `${h.env.KAFKA_GROUP_ID}.dlq`]);
});

afterAll(async () => {
  await outcomes?.stop();
  for (const ep of endpoints) await ep.down();
  await h?.close();
});

describe('notifier deliveries', () => {
  it('POSTs AssignToAgent then Release with the registered headers and a signature the endpoint verifies', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    await h.publishProvider({
      accountId: account,
      provider: 'AcmeCRM',
      endpoint: ep.url,
      headers: [
        { key: 'Authorization', value: 'Bearer very-secret-token-1' },
        { key: 'X-Tenant', value: 'acme' },
      ],
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('AcmeCRM');
    const it1 = h.interaction(account, 'AcmeCRM', 'case-1001');
    await h.publishInteraction([it1.queued, it1.assigned, it1.released]);

    await eventually(() => ep.received.length >= 2, { what: 'two notifications', timeoutMs: 30_000 });
    const [assign, release] = ep.received;
    expect(assign?.notifications[0]?.notification).toBe('AssignToAgent');
    expect(release?.notifications[0]?.notification).toBe('Release');
    for (const r of [assign, release]) {
      expect(r?.signatureValid).toBe(true);
      expect(r?.headers.authorization).toBe('Bearer very-secret-token-1');
      expect(r?.headers['x-tenant']).toBe('acme');
      expect(r?.headers['content-type']).toMatch(/^application\/json/);
      expect(r?.headers['webhook-signature']).toMatch(/^v1,/);
      expect(r?.headers['webhook-id']).toBe(r?.notifications[0]?.notificationid);
      expect(validateBody(providerNotificationBody, JSON.parse(r?.body ?? ''))).toMatchObject({ ok: true });
    }
    expect(assign?.headers['webhook-id']).toBe(deliveryIdFor(it1.assigned.id, 'AssignToAgent'));
    expect(assign?.notifications[0]).toMatchObject({
      objectid: it1.interactionId,
      externalId: 'case-1001',
      params: {
        AccountId: account,
        AccountName: account,
        Agent: 'jane.doe',
        Provider: 'AcmeCRM',
        Route: 'Support',
        RequestId: 'req-1',
        InteractionType: 'live',
      },
    });
    expect(release?.notifications[0]?.params.ReleasedBy).toBe('agent');

    const list = await eventually(
      async () => {
        const res = await h.api('GET', '/admin/deliveries?provider=AcmeCRM&state=delivered', account);
        return res.body.items.length === 2 ? res.body : undefined;
      },
      { what: 'two delivered deliveries listed' },
    );
    expect(list.meta).toMatchObject({ page: 1, count: 2, totalCount: 2, pageCount: 1 });
    for (const d of list.items) {
      expect(d.attempts).toHaveLength(1);
      expect(d.attempts[0]).toMatchObject({ status: 200, error: null });
    }
    const assignId = assign?.headers['webhook-id'] as string;
    await eventually(
      () =>
        outcomes
          .ofDelivery('cc.notification-delivery.v1', assignId)
          .some((m) => m.value.type === 'notification-delivery.delivered'),
      { what: 'delivered outcome event' },
    );
    // Secrets never reach the logs.
    expect(h.logs.text()).not.toContain('very-secret-token-1');
    expect(h.logs.text()).not.toContain(secret.slice(6));
  });

  it('names the route and requestId of the queued event, else those the assignment carries (queued event late)', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    await h.publishProvider({
      accountId: account,
      provider: 'LateCRM',
      endpoint: ep.url,
      headers: [],
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('LateCRM');
    const carrying = (e: CloudEvent, route: string, requestId: string) => ({
      ...e,
      data: { ...(e.data as Record<string, unknown>), route, requestId },
    });
    // Another routing instance's eager publication of the queued event failed and its relay has not run yet: the
    // assignment and the release are all the notifier has read of `late`.
    const late = h.interaction(account, 'LateCRM', 'case-2001');
    await h.publishInteraction([
      carrying(late.assigned, 'Billing', 'req-late'),
      carrying(late.released, 'Billing', 'req-late'),
    ]);
    // `read` had its queued event read (Support, req-1): that wins over what its assignment carries.
    const read = h.interaction(account, 'LateCRM', 'case-2002');
    await h.publishInteraction([read.queued, carrying(read.assigned, 'Other', 'req-other')]);

    // One notification per webhook-id (a retried POST of a slow answer may arrive twice).
    const byId = () => new Map(ep.received.map((r) => [r.headers['webhook-id'], r.notifications[0]]));
    await eventually(() => byId().size >= 3, { what: 'three notifications', timeoutMs: 30_000 });
    const sent = [...byId().values()];
    const of = (interactionId: string, kind: string) =>
      sent.find((n) => n?.objectid === interactionId && n.notification === kind)?.params;
    for (const kind of ['AssignToAgent', 'Release'])
      expect(of(late.interactionId, kind)).toMatchObject({
        Route: 'Billing',
        RequestId: 'req-late',
        Provider: 'LateCRM',
      });
    expect(of(read.interactionId, 'AssignToAgent')).toMatchObject({ Route: 'Support', RequestId: 'req-1' });
    for (const r of ep.received)
      expect(validateBody(providerNotificationBody, JSON.parse(r.body))).toMatchObject({ ok: true });
  });

  it('sends nothing for a provider without endpoint or an interaction without provider', async () => {
    const conn = h.runtime?.conn;
    await h.publishProvider({
      accountId: account,
      provider: 'NoEndpoint',
      endpoint: null,
      secrets: [{ secret: newSigningSecret(), validUntil: null }],
      version: 1,
    });
    await eventually(() => conn?.collection('providers').findOne({ accountId: account, provider: 'NoEndpoint' }), {
      what: 'provider without endpoint kept',
    });
    // The consumer counts each handled event; wait until all six of these were handled.
    const handled = async () => {
      const text = await (await fetch(`${h.runtime?.url()}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('kafka_consumed_events_total{') &&
            l.includes('topic="cc.interaction.v1"') &&
            l.includes('outcome="handled"'),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await handled();
    const a = h.interaction(account, 'NoEndpoint');
    const b = h.interaction(account, null);
    await h.publishInteraction([a.queued, a.assigned, a.released]);
    await h.publishInteraction([b.queued, b.assigned, b.released]);
    await eventually(async () => (await handled()) >= before + 6, { what: 'events handled' });
    // The count above may include other tests' events on the shared topic: these two are handled once committed.
    await h.handledSoFar();
    for (const id of [a.interactionId, b.interactionId]) {
      expect(await conn?.collection('deliveries').countDocuments({ interactionId: id })).toBe(0);
    }
  });

  it('sends no Release for a call released while it only rang (never assigned), and one after a transfer', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    await h.publishProvider({
      accountId: account,
      provider: 'Ringing',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('Ringing');
    // Hung up while ringing at an agent: routing's released event names the ringing agent (previousState offered).
    const rang = h.interaction(account, 'Ringing');
    const rangReleased = {
      ...rang.released,
      data: { ...(rang.released.data as Record<string, unknown>), releasedBy: 'api', previousState: 'offered' },
    };
    // Assigned, transferred, ringing at another agent, then hung up: the provider had AssignToAgent, so it hears Release.
    const moved = h.interaction(account, 'Ringing');
    const movedReleased = {
      ...moved.released,
      data: {
        ...(moved.released.data as Record<string, unknown>),
        agentId: randomUUID(),
        agentUsername: 'sam.other',
        releasedBy: 'api',
        previousState: 'offered',
      },
    };
    const handled = async () => {
      const text = await (await fetch(`${h.runtime?.url()}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('kafka_consumed_events_total{') &&
            l.includes('topic="cc.interaction.v1"') &&
            l.includes('outcome="handled"'),
        );
      return Number(line?.split(' ').at(-1) ?? 0);
    };
    const before = await handled();
    await h.publishInteraction([rang.queued, rangReleased as typeof rang.released]);
    await h.publishInteraction([moved.queued, moved.assigned, movedReleased as typeof moved.released]);
    await eventually(
      () => ep.received.some((r) => r.notifications[0]?.notification === 'Release' && r.answered === 200),
      { what: 'the transferred call’s Release delivered', timeoutMs: 60_000 },
    );
    await eventually(async () => (await handled()) >= before + 5, { what: 'all five events handled' });
    await h.handledSoFar();
    const release = ep.received.find((r) => r.notifications[0]?.notification === 'Release');
    expect(release?.notifications[0]?.objectid).toBe(moved.interactionId);
    expect(release?.notifications[0]?.params.Agent).toBe('jane.doe');
    const conn = h.runtime?.conn;
    expect(await conn?.collection('deliveries').countDocuments({ interactionId: rang.interactionId })).toBe(0);
    expect(ep.received.filter((r) => r.notifications[0]?.objectid === rang.interactionId)).toEqual([]);
  });

  it("delivers a transferred call's notifications in order within seconds of their events, and logs a late one's timeline", async () => {
    // What the simulator does: assigned, transferred and accepted by a second agent, released right after.
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    await h.publishProvider({
      accountId: account,
      provider: 'Transfer',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('Transfer');
    const call = h.interaction(account, 'Transfer');
    const data = call.assigned.data as Record<string, unknown>;
    const second = { agentId: randomUUID(), agentUsername: 'sam.other', channelId: randomUUID() };
    const assigned2 = {
      ...call.assigned,
      id: randomUUID(),
      time: new Date().toISOString(),
      data: { ...data, ...second, sequence: 7, offerId: randomUUID() },
    };
    const released = {
      ...call.released,
      time: new Date().toISOString(),
      data: { ...(call.released.data as Record<string, unknown>), ...second },
    };
    // A notification whose event reached the notifier 5 s late (consumer lag): its timeline is logged.
    const late = h.interaction(account, 'Transfer');
    const lateAssigned = { ...late.assigned, time: new Date(Date.now() - 5000).toISOString() };
    await h.publishInteraction([call.queued, call.assigned]);
    await h.publishInteraction([assigned2 as typeof call.assigned, released as typeof call.released]);
    await h.publishInteraction([late.queued, lateAssigned]);

    const mine = () => ep.received.filter((r) => r.notifications[0]?.objectid === call.interactionId);
    await eventually(() => mine().length >= 3, {
      what: "the transferred call's three notifications",
      timeoutMs: 30_000,
    });
    expect(mine().map((r) => `${r.notifications[0]?.notification} ${r.notifications[0]?.params.Agent}`)).toEqual([
      'AssignToAgent jane.doe',
      'AssignToAgent sam.other',
      'Release sam.other',
    ]);
    // Each from its own event: the simulator once timed the second AssignToAgent from the first accept (30-60 s).
    // 5 s is generous for a loaded 2-core machine (tens of ms at rest).
    const sent = [call.assigned, assigned2, released].map((e) => Date.parse(e.time));
    mine().forEach((r, i) => {
      expect(r.at - (sent[i] as number)).toBeLessThan(5000);
    });

    const lateId = deliveryIdFor(late.assigned.id, 'AssignToAgent');
    const line = await eventually(
      () =>
        h.logs.lines
          .map((l) => JSON.parse(l) as { msg?: string; deliveryId?: string; timeline?: Record<string, unknown> })
          .find((l) => l.msg === 'slow notification' && l.deliveryId === lateId),
      { what: 'the late notification logged with its timeline' },
    );
    expect(line?.timeline).toMatchObject({ from: 'event', fromAt: lateAssigned.time });
    const t = line?.timeline as Record<string, number>;
    expect(t.consumedMs).toBeGreaterThanOrEqual(5000);
    for (const [a, b] of [
      ['consumedMs', 'queuedMs'],
      ['queuedMs', 'attemptStartMs'],
      ['attemptStartMs', 'attemptEndMs'],
      ['attemptEndMs', 'outcomeWrittenMs'],
    ] as const) {
      expect(t[a]).toBeLessThanOrEqual(t[b] as number);
    }
    expect(t.recordedMs).toBeLessThanOrEqual(t.outcomeWrittenMs as number);
  });

  it('delivers after an endpoint comes back up, with every attempt logged', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    await ep.down();
    await h.publishProvider({
      accountId: account,
      provider: 'Flappy',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('Flappy');
    const it1 = h.interaction(account, 'Flappy');
    await h.publishInteraction([it1.queued, it1.assigned]);
    const id = deliveryIdFor(it1.assigned.id, 'AssignToAgent');

    await eventually(async () => (await delivery(id))?.attempts?.length >= 2, { what: 'two failed attempts' });
    const failing = await delivery(id);
    expect(failing.state).toBe('failed');
    await ep.up();
    const done = await eventually(
      async () => {
        const d = await delivery(id);
        return d.state === 'delivered' ? d : undefined;
      },
      { what: 'delivered after recovery', timeoutMs: 30_000 },
    );
    const attempts = done.attempts as { status: number | null; error: string | null; at: string }[];
    expect(attempts.length).toBeGreaterThanOrEqual(3);
    for (const a of attempts.slice(0, -1)) expect(a).toMatchObject({ status: null, error: 'connection refused' });
    expect(attempts.at(-1)).toMatchObject({ status: 200, error: null });
    // Attempts are spaced by the schedule (200 ms, 400 ms, …; jitter ±20 %).
    const gaps = attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(attempts[i]?.at as string));
    expect(gaps[0]).toBeGreaterThanOrEqual(150);
    expect(ep.byId(id)).toHaveLength(1);
    expect(ep.byId(id)[0]?.signatureValid).toBe(true);
    await eventually(
      () =>
        outcomes
          .ofDelivery('cc.notification-delivery.v1', id)
          .filter((m) => m.value.type === 'notification-delivery.attempt-failed').length >= 2,
      { what: 'attempt-failed events' },
    );
  });

  it('keeps the order per interaction under retries: Release never before its AssignToAgent', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    let assignCalls = 0;
    ep.reply = (r) => {
      if (r.notifications[0]?.notification === 'AssignToAgent' && ++assignCalls <= 2) return { status: 500 };
      return { status: 200 };
    };
    await h.publishProvider({
      accountId: account,
      provider: 'Ordered',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('Ordered');
    const it1 = h.interaction(account, 'Ordered');
    await h.publishInteraction([it1.queued, it1.assigned, it1.released]);
    await eventually(
      () => ep.received.some((r) => r.notifications[0]?.notification === 'Release' && r.answered === 200),
      {
        what: 'Release delivered',
        timeoutMs: 30_000,
      },
    );
    const seen = ep.received.map((r) => `${r.notifications[0]?.notification}:${r.answered}`);
    expect(seen).toEqual(['AssignToAgent:500', 'AssignToAgent:500', 'AssignToAgent:200', 'Release:200']);
    const assignOk = ep.received[2];
    const release = ep.received[3];
    expect(release?.at).toBeGreaterThanOrEqual(assignOk?.answeredAt as number);
  });

  it('disables an endpoint that answers 410 until the provider is registered again, then replays', async () => {
    const since = new Date().toISOString();
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    ep.reply = () => ({ status: 410 });
    await h.publishProvider({
      accountId: account,
      provider: 'Gone',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('Gone');
    const x = h.interaction(account, 'Gone');
    await h.publishInteraction([x.queued, x.assigned]);
    const xId = deliveryIdFor(x.assigned.id, 'AssignToAgent');
    await eventually(async () => (await delivery(xId))?.state === 'dead', { what: 'first delivery dead on 410' });
    expect((await delivery(xId)).attempts).toMatchObject([{ status: 410 }]);
    const breakers = await h.api('GET', '/admin/breakers', account);
    expect(breakers.body.items.find((b: { provider: string }) => b.provider === 'Gone')).toMatchObject({
      state: 'disabled',
    });
    await eventually(
      () =>
        outcomes.messages.some(
          (m) => m.value.type === 'notification-delivery.endpoint-disabled' && m.value.data.provider === 'Gone',
        ),
      { what: 'endpoint-disabled event' },
    );

    // Later notifications are not sent to the disabled endpoint.
    const y = h.interaction(account, 'Gone');
    await h.publishInteraction([y.queued, y.assigned]);
    const yId = deliveryIdFor(y.assigned.id, 'AssignToAgent');
    await eventually(async () => (await delivery(yId))?.state === 'dead', { what: 'second delivery dead' });
    expect((await delivery(yId)).attempts).toEqual([]);
    expect(ep.received).toHaveLength(1);

    // Registration again re-enables it; replaying the provider's dead deliveries delivers both.
    ep.reply = () => ({ status: 204 });
    await h.publishProvider({
      accountId: account,
      provider: 'Gone',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 2,
      type: 'provider.updated',
      reason: 're-registered',
    });
    await eventually(
      async () =>
        (await h.api('GET', '/admin/breakers', account)).body.items.find(
          (b: { provider: string }) => b.provider === 'Gone',
        )?.state === 'closed',
      { what: 'endpoint enabled again' },
    );
    const replay = await h.api('POST', '/admin/providers/Gone/deliveries/replay', account, { since });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ replayed: 2 });
    await eventually(
      async () => (await delivery(xId)).state === 'delivered' && (await delivery(yId)).state === 'delivered',
      {
        what: 'both delivered after replay',
      },
    );
    expect(ep.byId(xId)).toHaveLength(2); // the 410 and the replay: same webhook-id
    expect(ep.byId(yId)).toHaveLength(1);
  });

  it('kills a delivery after its last attempt, dead-letters it, and replays one delivery by id', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    ep.reply = () => ({ status: 500 });
    await h.publishProvider({
      accountId: account,
      provider: 'Broken',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
      version: 1,
    });
    await providerKnown('Broken');
    const it1 = h.interaction(account, 'Broken');
    await h.publishInteraction([it1.queued, it1.assigned]);
    const id = deliveryIdFor(it1.assigned.id, 'AssignToAgent');
    const dead = await eventually(
      async () => {
        const d = await delivery(id);
        return d?.state === 'dead' ? d : undefined;
      },
      { what: 'dead after six attempts', timeoutMs: 40_000 },
    );
    expect(dead.attempts).toHaveLength(6);
    expect(dead.nextAttemptAt).toBeNull();
    for (const a of dead.attempts) expect(a).toMatchObject({ status: 500, error: 'HTTP 500' });
    const deadList = await h.api('GET', '/admin/deliveries?provider=Broken&state=dead', account);
    expect(deadList.body.items.map((d: { deliveryId: string }) => d.deliveryId)).toEqual([id]);
    await eventually(
      () =>
        outcomes
          .ofDelivery('cc.notification-delivery.v1', id)
          .some((m) => m.value.type === 'notification-delivery.dead-lettered'),
      { what: 'dead-lettered on the outcome topic' },
    );
    // The group's dead-letter topic holds only consumed messages it could not handle, never delivery records.
    expect(outcomes.ofDelivery(`${h.env.KAFKA_GROUP_ID}.dlq`, id)).toEqual([]);

    // Replay: the endpoint now hangs, so the replayed delivery stays pending (a second replay is refused).
    ep.reply = () => 'hang';
    expect((await h.api('POST', `/admin/deliveries/${id}/replay`, account)).status).toBe(202);
    await eventually(() => ep.hangingCount() === 1, { what: 'replayed attempt in flight' });
    const again = await h.api('POST', `/admin/deliveries/${id}/replay`, account);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'NOTIFIER.DELIVERY_PENDING', status: 409 });
    ep.releaseHanging();
    await eventually(async () => (await delivery(id)).state === 'delivered', { what: 'replayed delivery delivered' });
    expect(new Set(ep.byId(id).map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
    expect(ep.byId(id)).toHaveLength(7);
  });

  it('keeps a redelivered or stale provider event out without dead-lettering it (duplicate key on the upsert)', async () => {
    const secret = newSigningSecret();
    const ep = await endpoint(secret);
    const spec = {
      accountId: account,
      provider: 'Redelivered',
      endpoint: ep.url,
      secrets: [{ secret, validUntil: null }],
    };
    const ids: string[] = [];
    ids.push((await h.publishProvider({ ...spec, version: 2 })).id);
    await providerKnown('Redelivered');
    // The same version again (a redelivery under a new event id) and an older one: the upsert's filter misses the
    // kept document and its insert hits the unique (account, provider) index.
    ids.push((await h.publishProvider({ ...spec, version: 2 })).id);
    ids.push((await h.publishProvider({ ...spec, version: 1 })).id);
    // One key, one partition: once version 3 is kept, the two before it were handled.
    ids.push((await h.publishProvider({ ...spec, version: 3, type: 'provider.updated' })).id);
    // Only this test's events' lines: on a shared broker the notifier also sees other runs' events (same provider
    // names, other accounts, some invalid and dead-lettered).
    const mine = () => h.logs.lines.filter((l) => ids.some((id) => l.includes(`"eventId":"${id}"`)));
    const kept = (version: number) =>
      mine().some((l) => l.includes('provider state kept') && l.includes(`"version":${version}`));
    await eventually(() => kept(3), { what: 'version 3 kept' });
    expect(mine().filter((l) => l.includes('provider state kept'))).toHaveLength(2);
    expect(mine().some((l) => l.includes('dead-lettered'))).toBe(false);
    expect(outcomes.messages.filter((m) => m.topic.endsWith('.dlq') && m.value.subject === 'Redelivered')).toEqual([]);
  });

  it('guards the admin API: token, scope, account, and precise validation errors', async () => {
    const listed = await h.api('GET', '/admin/deliveries?provider=AcmeCRM', account);
    const id = listed.body.items[0]?.deliveryId as string;
    expect(id).toBeDefined();
    expect((await h.api('GET', '/admin/deliveries', null)).status).toBe(401);
    const token = await h.token(account, 'stats');
    const wrongScope = await fetch(`${h.runtime?.url()}/admin/deliveries`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(wrongScope.status).toBe(403);
    // Another account sees nothing of this one.
    expect((await h.api('GET', `/admin/deliveries/${id}`, 'other-account')).status).toBe(404);
    expect((await h.api('GET', '/admin/deliveries', 'other-account')).body.items).toEqual([]);
    expect((await h.api('POST', `/admin/deliveries/${id}/replay`, 'other-account')).status).toBe(404);
    const badState = await h.api('GET', '/admin/deliveries?state=bogus&limit=0', account);
    expect(badState.status).toBe(400);
    expect(badState.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(badState.body.errors.map((e: { pointer: string }) => e.pointer).sort()).toEqual([
      '/query/limit',
      '/query/state',
    ]);
    expect((await h.api('GET', '/admin/deliveries/not-a-guid', account)).body.errors[0].pointer).toBe('/params/id');
    const noSince = await h.api('POST', '/admin/providers/AcmeCRM/deliveries/replay', account, { states: ['bogus'] });
    expect(noSince.status).toBe(400);
    expect(noSince.body.errors.length).toBeGreaterThanOrEqual(2);
    expect((await h.api('GET', '/admin/deliveries/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d', account)).status).toBe(404);
    const accept = await fetch(`${h.runtime?.url()}/admin/deliveries`, {
      headers: { authorization: `Bearer ${await h.token(account)}`, accept: 'application/vnd.cc-suite.v9+json' },
    });
    expect(accept.status).toBe(406);
  });
});
