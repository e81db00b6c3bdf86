import { eventually } from '@cc/testing';
import type { RoutingService } from '../../src/service';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();
let owner: RoutingService;
let other: RoutingService;
let api: Api;
let viaOther: Api;
/** Full reads of the account by the owner (interactions and agents), and change-flag reads. */
const reads = { full: 0, changed: 0 };

beforeAll(async () => {
  await h.setup();
  // The owner finds the wakes the other instance stores with its sweep (every 300 ms); the other instance's
  // engine is stopped, so it never takes the lease: every pass of the account is the owner's.
  owner = await h.start({ INSTANCE_ID: 'memory-owner', ENGINE_SWEEP_MS: '300', ENGINE_PASS_GAP_MS: '50' });
  other = await h.start({ INSTANCE_ID: 'memory-other' });
  await other.engine.stop();
  const repo = owner.context.interactions;
  const live = repo.live.bind(repo);
  const changed = repo.changed.bind(repo);
  repo.live = (accountId) => {
    reads.full++;
    return live(accountId);
  };
  repo.changed = (accountId) => {
    reads.changed++;
    return changed(accountId);
  };
  api = await Api.for(h, owner.url(), h.account());
  viaOther = api.on(other.url());
}, 60_000);
afterAll(() => h.teardown(), 60_000);

/** The interaction ids offered to an agent now (read through either instance: the agent document). */
async function offered(agentId: string): Promise<string[]> {
  const res = expectOk(await api.agent('GET', `/${agentId}/offers`));
  return (res.body as { interactionId: string }[]).map((o) => o.interactionId);
}

it("writes made through another instance reach the lease owner's next pass without reading the account whole", async () => {
  await api.setupRoute('Support');
  const jane = await api.createAgent('jane', { capacity: { calls: 1, semiLive: 2, nonLive: 2 } });
  // Through the owner: queued, nobody Ready. Its pass reads the account whole once and keeps it.
  const first = expectOk(
    await api.invoke({ requests: [{ route: 'Support', routingdata: { interactiontype: 'live' } }] }),
  ).body.results[0].interactionId as string;
  await eventually(() => owner.context.memory.get(api.accountId)?.interactions.has(first) ?? false, {
    accept: (held) => held,
    what: "the owner's memory of the account",
  });
  const fullAfterLoad = reads.full;
  expect(fullAfterLoad).toBeGreaterThanOrEqual(1);
  const holder = await owner.context.leases.holder(api.accountId);
  expect(holder?.owner).toBe('memory-owner');

  // Through the other instance: the agent becomes Ready. Only the changed agent document tells the owner.
  expectOk(await viaOther.agent('PUT', `/${jane}/presence`, { presence: 'Ready' }));
  expect(await eventually(() => offered(jane), { accept: (ids) => ids.includes(first) })).toEqual([first]);

  // Through the other instance: a new interaction (another type, so jane has room). Its insert carries the flag.
  const second = expectOk(
    await viaOther.invoke({ requests: [{ route: 'Support', routingdata: { interactiontype: 'chat' } }] }),
  ).body.results[0].interactionId as string;
  expect((await eventually(() => offered(jane), { accept: (ids) => ids.includes(second) })).sort()).toEqual(
    [first, second].sort(),
  );

  // Through the other instance: jane rejects the first offer. The owner's memory follows the interaction
  // (requeued, jane held back by the reject cooldown) from the change flag alone.
  const offers = expectOk(await viaOther.agent('GET', `/${jane}/offers`)).body as {
    offerId: string;
    interactionId: string;
  }[];
  const firstOffer = offers.find((o) => o.interactionId === first)?.offerId;
  expect((await viaOther.agent('POST', `/${jane}/offers/${firstOffer}/reject`)).status).toBe(204);
  await eventually(() => owner.context.memory.get(api.accountId)?.interactions.get(first)?.rec.state, {
    accept: (state) => state === 'queued',
    what: 'the rejected interaction requeued in the owner memory',
  });

  // Every pass of the account was the owner's, and none read it whole again: only what others changed.
  expect(reads.full).toBe(fullAfterLoad);
  expect(reads.changed).toBeGreaterThanOrEqual(3);
  expect((await owner.context.leases.holder(api.accountId))?.owner).toBe('memory-owner');
  // Flags are cleared once merged: nothing is left for the next pass to read.
  await eventually(
    () =>
      h.withDb(async (db) => ({
        interactions: await db.collection('interactions').countDocuments({ accountId: api.accountId, dirty: true }),
        agents: await db.collection('agents').countDocuments({ accountId: api.accountId, dirty: true }),
      })),
    { accept: (n) => n.interactions === 0 && n.agents === 0, what: 'change flags cleared' },
  );
});
