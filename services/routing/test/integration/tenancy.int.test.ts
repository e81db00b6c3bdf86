import { eventually } from '@cc/testing';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();
let a: Api;
let b: Api;

beforeAll(async () => {
  await h.setup();
  const base = await h.publicUrl(await h.start());
  a = await Api.for(h, base, h.account());
  b = await Api.for(h, base, h.account());
}, 60_000);
afterAll(() => h.teardown());

it("account B cannot see or change account A's configuration, agents or interactions", async () => {
  await a.setupRoute('Support');
  const agentA = await a.createAgent('jane', { ready: true });
  const d = expectOk(await a.invoke({ requests: [{ externalId: 'shared-ext', route: 'Support' }] }));
  const interactionId = d.body.results[0].interactionId;
  const offer = await eventually(async () => (await a.agent('GET', `/${agentA}/offers`)).body?.[0], {
    what: 'offer in A',
  });
  expectOk(await a.agent('POST', `/${agentA}/offers/${offer.offerId}/accept`));

  // Configuration and agents are invisible to B.
  expect(expectOk(await b.admin('GET', '/agents')).body.items).toEqual([]);
  expect(expectOk(await b.admin('GET', '/routes')).body.items).toEqual([]);
  expect((await b.admin('GET', `/agents/${agentA}`)).status).toBe(404);
  expect(
    (await b.admin('PUT', `/agents/${agentA}`, { username: 'stolen', capacity: { calls: 0, semiLive: 0, nonLive: 0 } }))
      .status,
  ).toBe(404);
  expect((await b.admin('DELETE', `/agents/${agentA}`)).status).toBe(404);
  expect((await b.admin('GET', `/interactions/${interactionId}/trace`)).status).toBe(404);
  expect((await b.admin('GET', '/routes/Support')).status).toBe(404);

  // Agent desktop: A's agent does not exist for B.
  expect((await b.agent('GET', `/${agentA}/presence`)).status).toBe(404);
  expect((await b.agent('PUT', `/${agentA}/presence`, { presence: 'Away' })).status).toBe(404);
  expect((await b.agent('GET', `/${agentA}/interactions`)).status).toBe(404);
  expect((await b.agent('POST', `/${agentA}/interactions/${interactionId}/release`)).status).toBe(404);
  // B's own agent cannot act on A's interaction.
  const agentB = await b.createAgent('jane', { ready: true });
  expect((await b.agent('POST', `/${agentB}/interactions/${interactionId}/hold`)).status).toBe(404);

  // Invoke: A's route and A's externalId mean nothing to B.
  expect((await b.invoke({ requests: [{ route: 'Support' }] })).status).toBe(422);
  expect(
    expectOk(await b.invoke({ requests: [{ action: 'release', externalId: 'shared-ext' }] })).body.results[0].outcome,
  ).toBe('not-found');

  // A is untouched.
  expect(expectOk(await a.agent('GET', `/${agentA}/interactions`)).body).toEqual([
    expect.objectContaining({ interactionId, state: 'connected' }),
  ]);
  expect(expectOk(await a.agent('GET', `/${agentA}/presence`)).body.presence).toBe('Ready');

  // The same usernames and externalIds may exist in both accounts.
  await b.setupRoute('Support');
  expect(
    expectOk(await b.invoke({ requests: [{ externalId: 'shared-ext', route: 'Support' }] })).body.results[0].outcome,
  ).toBe('queued');
});
