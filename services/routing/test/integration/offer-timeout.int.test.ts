import { eventually } from '@cc/testing';
import { expectOk } from '../support/api';
import { Harness, type ReadEvent } from '../support/harness';
import { scenario } from '../support/scenario';

const h = new Harness();
let base: string;

beforeAll(async () => {
  await h.setup();
  base = await h.publicUrl(await h.start({ OFFER_TIMEOUT_MS: '1500', MISSED_OFFERS_AWAY: '2' }));
}, 60_000);
afterAll(() => h.teardown());

describe('offer timeout (OFFER_TIMEOUT_MS 1500, MISSED_OFFERS_AWAY 2)', () => {
  it('an unanswered offer times out: counted Unexpected, requeued; after 2 misses in a row the agent is set Away', async () => {
    const { api, agentId } = await scenario(h, base);
    const res = expectOk(await api.invoke({ requests: [{ route: 'Support' }] }));
    const interactionId = res.body.results[0].interactionId;
    const events = await eventually(() => h.collector?.of(interactionId) ?? [], {
      accept: (e) => e.filter((x) => x.type === 'interaction.rejected').length === 2,
      timeoutMs: 20_000,
      what: 'two offer timeouts',
    });
    const rejected = events.filter((e) => e.type === 'interaction.rejected');
    expect(rejected.map((e) => [e.data.reason, e.data.outcome])).toEqual([
      ['timed-out', 'Unexpected'],
      ['timed-out', 'Unexpected'],
    ]);
    expect(rejected[0]?.data.ringingMs).toBe(1500);
    const presence = await eventually(async () => expectOk(await api.agent('GET', `/${agentId}/presence`)).body, {
      accept: (p) => p.presence === 'Away',
      what: 'the agent set Away',
    });
    expect(presence).toMatchObject({ eligibleForRouting: false, reason: 'Missed 2 offers in a row' });
    const stored = await h.withDb((db) =>
      db.collection('interactions').findOne({ accountId: api.accountId, _id: interactionId } as never),
    );
    expect(stored).toMatchObject({ state: 'queued', unexpectedOffers: 2 });
    // The agent's events are published after its write (the presence answer above can come first).
    const endedRings = (events: ReadEvent[]) =>
      events.filter((e) => e.type === 'agent-activity.segment-ended' && e.data.segment === 'Ringing');
    const activity = await eventually(() => h.collector?.of(agentId) ?? [], {
      accept: (e) => endedRings(e).length >= 2,
      what: "both rings' ends on the agent's topic",
    });
    expect(endedRings(activity).map((e) => e.data.outcome)).toEqual(['Unexpected', 'Unexpected']);
    // Not offered again while Away: the trace says why.
    const trace = await eventually(
      async () => expectOk(await api.admin('GET', `/interactions/${interactionId}/trace`)).body,
      {
        accept: (t) => t.decisions.at(-1)?.rule === 'no-eligible-agent',
      },
    );
    expect(trace.decisions.at(-1).candidates).toEqual([
      expect.objectContaining({ agentId, username: 'agent.one', excluded: 'presence Away' }),
    ]);
  });
});
