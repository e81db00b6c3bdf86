import { eventually } from '@cc/testing';
import { rng } from '../builders/rng';
import { Api, expectOk, type Reply } from '../support/api';
import { Harness } from '../support/harness';

/**
 * Randomized invariant test: one account driven through two routing instances by a seeded sequence of
 * random Invokes (dispatch and release), presence changes and agent actions; after every step the stored
 * truth is checked. A failure prints the seed and the step log; ROUTING_INVARIANT_SEED replays a sequence.
 */

const h = new Harness();
const capacity = { calls: 1, semiLive: 2, nonLive: 2 };
const bucket = { live: 'calls', chat: 'semiLive', nonlive: 'nonLive' } as const;
type Kind = keyof typeof bucket;
const seed = Number(process.env.ROUTING_INVARIANT_SEED ?? 20261126);
const steps = Number(process.env.ROUTING_INVARIANT_STEPS ?? 60);

beforeAll(() => h.setup(), 60_000);
afterAll(() => h.teardown(), 120_000);

// biome-ignore lint/suspicious/noExplicitAny: stored documents as read back
type Doc = Record<string, any>;

it(`random Invokes, presence changes and actions through two instances keep the invariants (seed ${seed})`, async () => {
  // Short offers and leases: timeouts, requeues and lease handovers happen within the run. Missed offers
  // never set an agent Away here: only the sequence's own presence changes do (else the drain could stall).
  const settings = {
    OFFER_TIMEOUT_MS: '6000',
    MISSED_OFFERS_AWAY: '0',
    LEASE_MS: '2000',
    LOG_LEVEL: 'error',
    ENGINE_PASS_GAP_MS: '100',
  };
  const one = await h.start({ ...settings, INSTANCE_ID: 'inv-1' });
  const two = await h.start({ ...settings, INSTANCE_ID: 'inv-2' });
  const apis = [await Api.for(h, one.url(), h.account())];
  apis.push((apis[0] as Api).on(two.url()));
  const r = rng(seed);
  const api = () => r.pick(apis);
  await (apis[0] as Api).setupRoute('Support');
  const agents = await Promise.all(
    Array.from({ length: 4 }, (_, i) => (apis[0] as Api).createAgent(`inv-agent-${i}`, { capacity })),
  );
  const accountId = (apis[0] as Api).accountId;

  const kinds = new Map<string, Kind>(); // every accepted dispatch
  const byExternal = new Map<string, string>(); // live externalId → interaction
  const released = new Set<string>(); // ended by us: API release, or agent release then end-wrap
  const log: string[] = [];
  let n = 0;

  const check = async (step: string) => {
    const [live, archived, agentDocs] = await h.withDb(async (db) =>
      Promise.all([
        db.collection('interactions').find({ accountId }).toArray() as Promise<Doc[]>,
        db.collection('interaction_archive').find({ accountId }).toArray() as Promise<Doc[]>,
        db.collection('agents').find({ accountId }).toArray() as Promise<Doc[]>,
      ]),
    );
    const where = `after step ${step} (seed ${seed})\n${log.slice(-15).join('\n')}`;
    const all = new Map<string, Doc>([...archived, ...live].map((d) => [d._id as string, d]));
    for (const [id] of kinds) {
      const doc = all.get(id);
      // None lost: every accepted dispatch is stored, queued or assigned, or ended only because we ended it.
      if (!doc) throw new Error(`interaction ${id} is lost ${where}`);
      if (doc.state === 'ended' && !released.has(id)) throw new Error(`interaction ${id} ended unasked ${where}`);
    }
    const openLegs = new Map<string, Map<Kind, number>>();
    for (const doc of live) {
      // One agent at a time: at most one open leg (ringing, connected, held or wrap).
      const open = (doc.legs as Doc[]).filter((l) => !l.done);
      if (open.length > 1) throw new Error(`interaction ${doc._id} is with ${open.length} agents ${where}`);
      if (doc.state === 'offered' && doc.offer?.agentId !== open[0]?.agentId)
        throw new Error(`interaction ${doc._id} offered without its leg ${where}`);
      for (const l of open) {
        const m = openLegs.get(l.agentId) ?? new Map<Kind, number>();
        m.set(doc.type, (m.get(doc.type) ?? 0) + 1);
        openLegs.set(l.agentId, m);
      }
    }
    for (const a of agentDocs) {
      // Capacity: neither the agent's work list nor the interactions with it exceed it, per type.
      for (const kind of Object.keys(bucket) as Kind[]) {
        const cap = capacity[bucket[kind]];
        const held = (a.work as Doc[]).filter((w) => w.type === kind).length;
        const legs = openLegs.get(a._id)?.get(kind) ?? 0;
        if (held > cap || legs > cap)
          throw new Error(`agent ${a.username} holds ${held} (${legs} legs) ${kind} over capacity ${cap} ${where}`);
      }
    }
  };

  const desktop = async (agentId: string, act: boolean) => {
    const offers = (expectOk(await api().agent('GET', `/${agentId}/offers`)).body ?? []) as Doc[];
    const mine = (expectOk(await api().agent('GET', `/${agentId}/interactions`)).body ?? []) as Doc[];
    if (offers.length && (act || r.next() < 0.6)) {
      const o = r.pick(offers);
      const verb = act || r.next() < 0.8 ? 'accept' : 'reject';
      const res = await api().agent('POST', `/${agentId}/offers/${o.offerId}/${verb}`);
      log.push(
        `${agentId} ${verb} ${o.interactionId}: ${res.status} ${res.status >= 300 ? JSON.stringify(res.body) : ''}`,
      );
      // An offer may have been released or timed out meanwhile (404), or rung out a moment ago, before
      // the engine requeued it (409, expired): both are honest; anything else is a fault.
      const honest = res.status === 404 || (res.status === 409 && /expired/.test(String(res.body?.detail)));
      if (!honest && res.status !== (verb === 'accept' ? 200 : 204))
        throw new Error(`${verb} answered ${res.status} ${JSON.stringify(res.body)}\n${log.slice(-15).join('\n')}`);
      return;
    }
    if (mine.length) {
      const i = r.pick(mine);
      const path = `/${agentId}/interactions/${i.interactionId}`;
      let res: Reply;
      if (i.state === 'wrap') {
        res = await api().agent('POST', `${path}/end-wrap`);
        if (res.status === 204) released.add(i.interactionId);
      } else res = await api().agent('POST', `${path}/release`);
      log.push(`${agentId} ${i.state === 'wrap' ? 'end-wrap' : 'release'} ${i.interactionId}: ${res.status}`);
      expect(res.status).toBeLessThan(300);
      if (i.state !== 'wrap') released.add(i.interactionId); // released by the agent: ends after wrap
    }
  };

  for (let step = 0; step < steps; step++) {
    const roll = r.next();
    if (roll < 0.3) {
      const requests = Array.from({ length: 1 + r.int(3) }, () => ({
        requestId: `inv-${n}`,
        externalId: `ext-${n++}`,
        route: 'Support',
        routingdata: { interactiontype: r.pick(Object.keys(bucket) as Kind[]) },
      }));
      const res = expectOk(await api().invoke({ requests }));
      for (const [i, result] of (res.body.results as Doc[]).entries()) {
        const req = requests[i] as (typeof requests)[number];
        kinds.set(result.interactionId, req.routingdata.interactiontype);
        byExternal.set(req.externalId, result.interactionId);
      }
      log.push(`invoke ${requests.map((q) => q.externalId).join(',')}`);
    } else if (roll < 0.4 && byExternal.size) {
      const [ext, id] = r.pick([...byExternal.entries()]);
      const res = expectOk(await api().invoke({ requests: [{ action: 'release', externalId: ext }] }));
      byExternal.delete(ext);
      if (res.body.results[0].outcome === 'released') released.add(id);
      log.push(`release ${ext}: ${res.body.results[0].outcome}`);
    } else if (roll < 0.55) {
      const agentId = r.pick(agents);
      const presence = r.next() < 0.7 ? 'Ready' : 'Away';
      const res = await api().agent('PUT', `/${agentId}/presence`, { presence });
      log.push(`${agentId} ${presence}: ${res.status}`);
      expect([200, 409]).toContain(res.status);
    } else {
      await desktop(r.pick(agents), false);
    }
    await check(`${step}`);
  }

  // Drain: every agent Ready and taking everything, until each interaction we did not release is handled.
  for (const agentId of agents) expectOk(await api().agent('PUT', `/${agentId}/presence`, { presence: 'Ready' }));
  await eventually(
    async () => {
      // Each agent takes one step per round, all agents at once (their desktops are independent).
      await Promise.all(agents.map((agentId) => desktop(agentId, true)));
      await check('drain');
      const left = [...kinds.keys()].filter((id) => !released.has(id));
      // The states of what is left say whether routing is stuck or only slow.
      const states = await h.withDb((db) =>
        Promise.all(left.map((id) => db.collection('interactions').findOne({ accountId, _id: id as never }))),
      );
      return states.map((d, i) => `${left[i]}:${d?.state ?? 'archived'}`);
    },
    { accept: (left) => left.length === 0, timeoutMs: 300_000, what: `every interaction handled (seed ${seed})` },
  );
  await check('end');
  expect(kinds.size).toBeGreaterThan(0);
}, 600_000);
