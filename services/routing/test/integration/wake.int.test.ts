import { eventually } from '@cc/testing';
import type { RoutingService } from '../../src/service';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();
let svc: RoutingService;
let api: Api;
/** Every collection operation the instance sends to the store, as `<collection>.<method>`. */
const ops: string[] = [];
/** The same for `routing_accounts`, with the `_id` (account) its filter names. */
const accountOps: { op: string; accountId: unknown; filterKeys: string[] }[] = [];
/** When the instance was asked to start, and when it sent each `agents.find` (the outbox sweeps' last read). */
let startedAt = 0;
const agentFinds: number[] = [];

beforeAll(async () => {
  await h.setup();
  // Sweeps every ten minutes: within this test only wakes and timers can move anything.
  startedAt = Date.now();
  svc = await h.start({
    ENGINE_SWEEP_MS: '600000',
    OUTBOX_SWEEP_MS: '600000',
    EXPIRY_INTERVAL_MS: '600000',
    OFFER_TIMEOUT_MS: '1500',
    ENGINE_PASS_GAP_MS: '50',
    MISSED_OFFERS_AWAY: '0', // offers ring out after 1.5 s here: nobody is set Away for missing them
  });
  svc.conn.set('debug', (collection: string, method: string, filter?: { _id?: unknown }) => {
    ops.push(`${collection}.${method}`);
    if (collection === 'agents' && method === 'find') agentFinds.push(Date.now());
    if (collection === 'routing_accounts')
      accountOps.push({ op: `${collection}.${method}`, accountId: filter?._id, filterKeys: Object.keys(filter ?? {}) });
  });
  api = await Api.for(h, svc.url(), h.account());
}, 60_000);
afterAll(() => h.teardown());

it('an idle instance sends nothing to the store between its sweeps', async () => {
  // After start: the engine sweep and the outbox sweeps (now and after the 2 s grace), then silence.
  // The second sweep starts at least the grace (2 s) after the start; the first one's read may be seen here too.
  await eventually(() => agentFinds.filter((t) => t >= startedAt + 2000).length, {
    accept: (n) => n >= 1,
    timeoutMs: 10_000,
    what: "the outbox's second start-up sweep",
  });
  const before = ops.length;
  await new Promise((r) => setTimeout(r, 2000)); // the idle window under test
  // Provider events other tests publish on the shared broker are work (the read model), not polling.
  const consumed = /^(providers|processed_events)\./;
  expect(ops.slice(before).filter((o) => !consumed.test(o))).toEqual([]);
});

it('offers to a Ready agent at once after an Invoke, and to an agent who becomes Ready, without a tick', async () => {
  await api.setupRoute('Support');
  const jane = await api.createAgent('jane', { ready: true });
  let started = Date.now();
  const first = expectOk(
    await api.invoke({ requests: [{ route: 'Support', routingdata: { interactiontype: 'live' } }] }),
  ).body.results[0].interactionId as string;
  const offer = await eventually(async () => (await api.agent('GET', `/${jane}/offers`)).body?.[0], {
    timeoutMs: 5000,
    intervalMs: 20,
    what: 'the offer after Invoke',
  });
  expect(offer.interactionId).toBe(first);
  expect(Date.now() - started).toBeLessThan(3000);

  // Nobody Ready: the Invoke waits; the agent becoming Ready is the work that wakes the engine.
  const bob = await api.createAgent('bob');
  expectOk(await api.agent('POST', `/${jane}/offers/${offer.offerId}/accept`));
  const second = expectOk(
    await api.invoke({ requests: [{ route: 'Support', routingdata: { interactiontype: 'live' } }] }),
  ).body.results[0].interactionId as string;
  started = Date.now();
  expectOk(await api.agent('PUT', `/${bob}/presence`, { presence: 'Ready' }));
  const offerToBob = await eventually(async () => (await api.agent('GET', `/${bob}/offers`)).body?.[0], {
    timeoutMs: 5000,
    intervalMs: 20,
    what: 'the offer after the agent became Ready',
  });
  expect(offerToBob.interactionId).toBe(second);
  expect(Date.now() - started).toBeLessThan(3000);

  // The offer rings out on the timer the pass armed for its expiry (1.5 s), is requeued and offered again.
  const offered = await eventually(
    () => (h.collector?.of(second) ?? []).filter((e) => e.type === 'interaction.offered'),
    { accept: (e) => e.length >= 2, timeoutMs: 8000, what: 'a second offer after the first rang out' },
  );
  const gap = Date.parse(offered[1]?.time as string) - Date.parse(offered[0]?.time as string);
  expect(gap).toBeGreaterThanOrEqual(1500);
  expect(gap).toBeLessThan(4000);
}, 60_000);

it('a wake is one store command whether the account is new, already due or waiting for a deadline', async () => {
  const accountId = `wake-${Date.now()}`;
  const leases = svc.context.leases;
  // (No owner is stored as null or not at all: both mean free.)
  const stored = async () => {
    const d = await h.withDb((db) => db.collection('routing_accounts').findOne({ _id: accountId as never }));
    return { wakeAt: d?.wakeAt, owner: d?.owner ?? null, leaseUntil: d?.leaseUntil };
  };
  // This account's commands only: the engine may still be passing the accounts of the tests before (a timer).
  const commandsOf = async (fn: () => Promise<unknown>) => {
    const before = accountOps.length;
    await fn();
    return accountOps
      .slice(before)
      .filter((o) => o.accountId === accountId)
      .map((o) => o.op);
  };
  // New: created due, with no lease.
  expect(await commandsOf(() => leases.wake(accountId))).toEqual(['routing_accounts.updateOne']);
  expect(await stored()).toMatchObject({ wakeAt: 0, owner: null, leaseUntil: 0 });
  // Already due (a burst of Invokes between two passes): still one command, nothing else changes.
  expect(await commandsOf(() => leases.wake(accountId))).toEqual(['routing_accounts.updateOne']);
  expect(await stored()).toMatchObject({ wakeAt: 0, owner: null, leaseUntil: 0 });
  // Waiting for a deadline, lease held: due again, the lease untouched.
  await h.withDb((db) =>
    db
      .collection('routing_accounts')
      .updateOne({ _id: accountId as never }, { $set: { wakeAt: Date.now() + 60_000, owner: 'x', leaseUntil: 5 } }),
  );
  expect(await commandsOf(() => leases.wake(accountId))).toEqual(['routing_accounts.updateOne']);
  expect(await stored()).toMatchObject({ wakeAt: 0, owner: 'x', leaseUntil: 5 });
});

it('wakes that come while this instance passes the account store one write per pass start, and none is lost', async () => {
  const own = await Api.for(h, svc.url(), h.account());
  await own.setupRoute('Burst');
  await own.createAgent('ann', { ready: true, capacity: { calls: 1, semiLive: 1, nonLive: 20 } });
  const accountId = own.accountId;
  const writes = () => accountOps.filter((o) => o.accountId === accountId);
  const before = writes().length;
  // 60 wakes one after another (as Invokes answered one after another would), every sixth an Invoke of its own:
  // passes start and end meanwhile.
  const wakes = 60;
  const invoked: string[] = [];
  for (let i = 0; i < wakes; i++) {
    if (i % 6 === 5) {
      const res = await own.invoke({ requests: [{ route: 'Burst', routingdata: { interactiontype: 'nonlive' } }] });
      invoked.push(expectOk(res).body.results[0].interactionId as string);
    } else await svc.context.waker.wake(accountId);
  }
  const ops = writes().slice(before);
  // A wake is an update by `_id` alone (a pass's settle names its owner too).
  const stored = ops.filter((o) => o.op === 'routing_accounts.updateOne' && o.filterKeys.join() === '_id').length;
  const starts = ops.filter((o) => o.op === 'routing_accounts.findOneAndUpdate').length;
  // One write per wake before; now a wake during a pass (or before the pass that the wake made miss its settle
  // starts) is stored once and the others lean on it (in the gap after a pass that settled, each still writes).
  expect(stored).toBeLessThan(wakes * 0.75);
  expect(starts).toBeGreaterThan(0);
  // None is lost: every Invoke of the burst (whose wake may be one not stored) is offered to the Ready agent.
  await eventually(
    () => invoked.filter((id) => !(h.collector?.of(id) ?? []).some((e) => e.type === 'interaction.offered')),
    { accept: (missing: string[]) => missing.length === 0, timeoutMs: 10_000, what: 'an offer of every Invoke' },
  );
}, 30_000);

it('expires bookkeeping by its indexed time field: request logs, decisions, archive, consumed event ids', async () => {
  const now = Date.now();
  const old = now - 31 * 86_400_000;
  const account = `exp-${now}`;
  await h.withDb(async (db) => {
    await db.collection('invoke_requests').insertMany([
      { _id: `${account}:r1`, accountId: account, expiresAt: now - 1 },
      { _id: `${account}:r2`, accountId: account, expiresAt: now + 3_600_000 },
    ] as never[]);
    await db.collection('interaction_decisions').insertMany([
      { _id: `${account}:d1`, accountId: account, interactionId: 'i1', at: old },
      { _id: `${account}:d2`, accountId: account, interactionId: 'i1', at: now },
    ] as never[]);
    await db.collection('interaction_archive').insertMany([
      { _id: `${account}:a1`, accountId: account, state: 'ended', endedAt: old },
      { _id: `${account}:a2`, accountId: account, state: 'ended', endedAt: now },
    ] as never[]);
    await db.collection('processed_events').insertMany([
      { _id: `${account}:e1`, at: new Date(now - 8 * 86_400_000) },
      { _id: `${account}:e2`, at: new Date(now) },
    ] as never[]);
  });
  const deleted = await svc.expiry.runOnce();
  expect(deleted).toMatchObject({
    invoke_requests: expect.any(Number),
    interaction_decisions: expect.any(Number),
    interaction_archive: expect.any(Number),
    processed_events: expect.any(Number),
  });
  const left = await h.withDb(async (db) => {
    const ids: string[] = [];
    for (const c of ['invoke_requests', 'interaction_decisions', 'interaction_archive', 'processed_events'])
      for (const d of await db
        .collection(c)
        .find({ _id: { $regex: `^${account}:` } } as never)
        .toArray())
        ids.push(String(d._id).slice(account.length + 1));
    return ids.sort();
  });
  expect(left).toEqual(['a2', 'd2', 'e2', 'r2']);
});
