import { eventually } from '@cc/testing';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();
let api: Api;

beforeAll(async () => {
  await h.setup();
  const svc = await h.start();
  api = await Api.for(h, await h.publicUrl(svc), h.account());
}, 60_000);
afterAll(() => h.teardown());

it('dispatch → offer → accept → hold → retrieve → release → end wrap, with events in order and consistent timestamps', async () => {
  await api.setupRoute('Support', { skills: ['English'] });
  const agentId = await api.createAgent('Jane.Doe', { skills: ['english'], ready: true });

  const invoked = await api.invoke({
    requests: [
      {
        requestId: 'req-1',
        externalId: 'ext-1',
        route: 'support',
        linkeddata: [{ type: 'clid', value: '+441234567890' }],
        routingdata: { interactiontype: 'live', skills: [{ name: 'ENGLISH' }] },
      },
    ],
  });
  expect(invoked.status).toBe(202);
  const [result] = invoked.body.results;
  expect(result).toMatchObject({
    index: 0,
    action: 'dispatch',
    requestId: 'req-1',
    externalId: 'ext-1',
    outcome: 'queued',
    duplicate: false,
  });
  const interactionId = result.interactionId as string;

  const offers = await eventually(async () => (await api.agent('GET', `/${agentId}/offers`)).body, {
    accept: (b) => Array.isArray(b) && b.length === 1,
    what: 'an offer at the agent',
  });
  expect(offers[0]).toMatchObject({ interactionId, interactionType: 'live', route: 'Support' });

  const accepted = expectOk(await api.agent('POST', `/${agentId}/offers/${offers[0].offerId}/accept`));
  expect(accepted.body).toMatchObject({ interactionId, state: 'connected', externalId: 'ext-1' });
  expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/hold`)).body.state).toBe('held');
  expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/retrieve`)).body.state).toBe(
    'connected',
  );
  expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/release`)).body.state).toBe(
    'wrap',
  );
  expect((await api.agent('POST', `/${agentId}/interactions/${interactionId}/end-wrap`)).status).toBe(204);
  expect((await api.agent('GET', `/${agentId}/interactions`)).body).toEqual([]);

  const expected = [
    'interaction.queued',
    'interaction.offered',
    'interaction.applet-executed',
    'interaction.assigned',
    'interaction.held',
    'interaction.retrieved',
    'interaction.wrap-started',
    'interaction.released',
    'interaction.wrap-ended',
  ];
  const events = await eventually(() => h.collector?.of(interactionId) ?? [], {
    accept: (e) => e.length >= expected.length,
    what: 'interaction events on cc.interaction.v1',
  });
  expect(events.map((e) => e.type)).toEqual(expected);
  expect(events.map((e) => e.data.sequence)).toEqual(expected.map((_, i) => i + 1));
  for (const e of events) {
    expect(e.data.occurredAt).toBe(e.time);
    expect(e.data).toMatchObject({ interactionId, externalId: 'ext-1', provider: null, accountId: api.accountId });
  }
  const times = events.map((e) => Date.parse(e.time));
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  const assigned = events.find((e) => e.type === 'interaction.assigned');
  expect(assigned?.data).toMatchObject({ agentId, agentUsername: 'Jane.Doe' });
  const offered = events.find((e) => e.type === 'interaction.offered');
  expect(assigned?.data.ringingMs).toBe(Date.parse(assigned?.time as string) - Date.parse(offered?.time as string));
  const released = events.find((e) => e.type === 'interaction.released');
  expect(released?.data).toMatchObject({ releasedBy: 'agent', previousState: 'connected', agentId });

  // Agent activity: presence, then Ringing → Connected (with a hold inside) → Wrap, workload up and down.
  const activity = await eventually(() => h.collector?.of(agentId) ?? [], {
    accept: (e) => e.filter((x) => x.type === 'agent-activity.segment-ended' && x.data.segment === 'Wrap').length === 1,
    what: 'agent activity events',
  });
  const segments = activity
    .filter((e) => e.type.startsWith('agent-activity.segment'))
    .map((e) => `${e.type.endsWith('started') ? '+' : '-'}${e.data.segment}`);
  expect(segments).toEqual([
    '+Ringing',
    '-Ringing',
    '+Connected',
    '+HeldExternalParty',
    '-HeldExternalParty',
    '-Connected',
    '+Wrap',
    '-Wrap',
  ]);
  const ringEnd = activity.find((e) => e.type === 'agent-activity.segment-ended' && e.data.segment === 'Ringing');
  expect(ringEnd?.data.outcome).toBe('Answered');
  expect(Date.parse(ringEnd?.data.endedAt)).toBe(Date.parse(assigned?.time as string));
  const workloads = activity
    .filter((e) => e.type === 'agent-activity.workload-changed')
    .map((e) => e.data.workload.calls);
  expect(workloads).toEqual([1, 0]);
  const presence = activity.find((e) => e.type === 'agent-activity.presence-changed');
  expect(presence?.data).toMatchObject({ presence: 'Ready', eligibleForRouting: true, previous: null });
  expect(activity.map((e) => e.data.sequence)).toEqual(activity.map((_, i) => i + 1));
}, 60_000);
