import { AppError } from '@cc/kit';
import {
  changePresence,
  type LegView,
  reconcileAgentWork,
  reservationRefusal,
  reserve,
  workloadOf,
} from '../../src/domain/agent';
import type { AgentRecord, Leg, Milestone } from '../../src/domain/types';
import { agentRecord } from '../builders/routing.builders';

const interaction = { interactionId: 'i0000000-0000-4000-8000-000000000001', type: 'live' as const, medium: 'Phone' };
const ids = { offerId: 'o0000000-0000-4000-8000-000000000001', channelId: 'c0000000-0000-4000-8000-000000000001' };
const opts = { now: 100_000, reserveGraceMs: 10_000, missedOffersAway: 3 };

const ready = (over: Partial<AgentRecord> = {}) => changePresence(agentRecord(over), 'Ready', null, 1_000).next;
const leg = (timeline: Milestone[], done = false, agentId?: string): LegView => ({
  interaction,
  leg: {
    channelId: ids.channelId,
    offerId: ids.offerId,
    agentId: agentId ?? '',
    agentUsername: 'jane',
    timeline,
    done,
  } as Leg,
});
const types = (c: { events: { type: string; data: Record<string, unknown> }[] }) =>
  c.events.map((e) =>
    e.type.includes('segment') ? `${e.type.split('-').pop()}:${e.data.segment}` : e.type.replace('agent-activity.', ''),
  );

describe('presence', () => {
  it('the first login has no previous state; later changes close the previous one with its duration', () => {
    const first = changePresence(agentRecord(), 'Ready', null, 1_000);
    expect(first.events[0]?.data).toMatchObject({
      presence: 'Ready',
      eligibleForRouting: true,
      previous: null,
      sequence: 1,
    });
    expect(first.wake).toBe(true);
    const away = changePresence(first.next, 'Away', 'Lunch', 61_000);
    expect(away.events[0]?.data).toMatchObject({
      presence: 'Away',
      eligibleForRouting: false,
      reason: 'Lunch',
      previous: {
        presence: 'Ready',
        eligibleForRouting: true,
        startedAt: '1970-01-01T00:00:01.000Z',
        durationMs: 60_000,
      },
      sequence: 2,
    });
    expect(away.wake).toBe(false);
  });

  it('setting the same presence again changes nothing', () => {
    const r = ready();
    expect(changePresence(r, 'Ready', null, 5_000).events).toEqual([]);
  });

  it('becoming Ready starts idle time and clears missed offers', () => {
    const away = changePresence(ready({ idleSince: 0 }), 'Away', null, 2_000).next;
    const back = changePresence({ ...away, missedOffers: 2 }, 'Ready', null, 9_000).next;
    expect(back.idleSince).toBe(9_000);
    expect(back.missedOffers).toBe(0);
  });

  it('logging out with interactions in hand is refused', () => {
    const busy = reserve(ready(), interaction, ids, 2_000).next;
    expect(() => changePresence(busy, 'LoggedOut', null, 3_000)).toThrow(AppError);
    expect(() => changePresence(busy, 'Away', null, 3_000)).not.toThrow();
  });
});

describe('reservation', () => {
  it('adds a ringing work item, announces Ringing and the workload, and resets idle time', () => {
    const change = reserve(ready(), interaction, ids, 5_000);
    expect(change.next.work).toEqual([
      { interactionId: interaction.interactionId, ...ids, type: 'live', cursor: 1, reservedAt: 5_000 },
    ]);
    expect(types(change)).toEqual(['started:Ringing', 'workload-changed']);
    expect(change.events[1]?.data).toMatchObject({ workload: { calls: 1, semiLive: 0, nonLive: 0 }, previous: null });
    expect(change.next.idleSince).toBe(5_000);
  });

  it('is refused when not Ready or without capacity for the type', () => {
    expect(reservationRefusal(agentRecord({ presence: 'Away' }), 'live')).toBe('presence Away');
    const full = reserve(ready(), interaction, ids, 5_000).next;
    expect(reservationRefusal(full, 'live')).toBe('no free calls capacity (1/1)');
    expect(reservationRefusal(full, 'chat')).toBeNull();
    expect(() => reserve(full, interaction, ids, 6_000)).toThrow('no free calls capacity');
  });

  it('workload counts items per capacity bucket', () => {
    expect(workloadOf([{ type: 'live' }, { type: 'chat' }, { type: 'chat' }, { type: 'nonlive' }])).toEqual({
      calls: 1,
      semiLive: 2,
      nonLive: 1,
    });
  });
});

describe("reconciling work with the interactions' legs", () => {
  const reserved = () => reserve(ready(), interaction, ids, 5_000).next;

  it('announces every new milestone once, with its exact time, and frees capacity when the leg is done', () => {
    const agent = reserved();
    const timeline: Milestone[] = [
      { kind: 'start', segment: 'Ringing', at: 5_000 },
      { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Answered' },
      { kind: 'start', segment: 'Connected', at: 6_000 },
      { kind: 'start', segment: 'HeldExternalParty', at: 7_000 },
    ];
    const step1 = reconcileAgentWork(agent, [leg(timeline, false, agent.agentId)], opts);
    expect(types(step1)).toEqual(['ended:Ringing', 'started:Connected', 'started:HeldExternalParty']);
    expect(step1.events[0]?.data).toMatchObject({
      outcome: 'Answered',
      durationMs: 1_000,
      startedAt: '1970-01-01T00:00:05.000Z',
    });
    expect(step1.next.work[0]?.cursor).toBe(4);
    expect(step1.wake).toBe(false);
    // Idempotent: nothing new, nothing emitted.
    expect(reconcileAgentWork(step1.next, [leg(timeline, false, agent.agentId)], opts).events).toEqual([]);

    const finished: Milestone[] = [
      ...timeline,
      { kind: 'end', segment: 'HeldExternalParty', at: 8_000 },
      { kind: 'end', segment: 'Connected', at: 9_000 },
      { kind: 'start', segment: 'Wrap', at: 9_000 },
      { kind: 'end', segment: 'Wrap', at: 12_000 },
    ];
    const step2 = reconcileAgentWork(step1.next, [leg(finished, true, agent.agentId)], opts);
    expect(types(step2)).toEqual([
      'ended:HeldExternalParty',
      'ended:Connected',
      'started:Wrap',
      'ended:Wrap',
      'workload-changed',
    ]);
    expect(step2.events.find((e) => e.data.segment === 'Connected')?.data.durationMs).toBe(3_000);
    expect(step2.events.at(-1)?.data).toMatchObject({
      workload: { calls: 0 },
      previous: { workload: { calls: 1 }, durationMs: 7_000 },
    });
    expect(step2.next.work).toEqual([]);
    expect(step2.next.idleSince).toBe(12_000);
    expect(step2.wake).toBe(true);
  });

  it('catches up several steps at once after a crash (same events as step by step)', () => {
    const agent = reserved();
    const all: Milestone[] = [
      { kind: 'start', segment: 'Ringing', at: 5_000 },
      { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Answered' },
      { kind: 'start', segment: 'Connected', at: 6_000 },
      { kind: 'end', segment: 'Connected', at: 9_000 },
      { kind: 'start', segment: 'Wrap', at: 9_000 },
    ];
    expect(types(reconcileAgentWork(agent, [leg(all, false, agent.agentId)], opts))).toEqual([
      'ended:Ringing',
      'started:Connected',
      'ended:Connected',
      'started:Wrap',
    ]);
  });

  it('timed-out offers count as missed; the Nth in a row sets a Ready agent Away', () => {
    let agent = { ...reserved(), missedOffers: 2 };
    const timeline: Milestone[] = [
      { kind: 'start', segment: 'Ringing', at: 5_000 },
      { kind: 'end', segment: 'Ringing', at: 25_000, outcome: 'Unexpected', reason: 'timed-out' },
    ];
    const change = reconcileAgentWork(agent, [leg(timeline, true, agent.agentId)], opts);
    expect(types(change)).toEqual(['ended:Ringing', 'workload-changed', 'presence-changed']);
    expect(change.events[0]?.data.outcome).toBe('Unexpected');
    expect(change.events[2]?.data).toMatchObject({
      presence: 'Away',
      reason: 'Missed 3 offers in a row',
      occurredAt: '1970-01-01T00:00:25.000Z',
    });
    expect(change.next).toMatchObject({ presence: 'Away', missedOffers: 0, work: [] });
    // A rejection is deliberate: not counted as missed.
    agent = { ...reserved(), missedOffers: 2 };
    const rejected = reconcileAgentWork(
      agent,
      [
        leg(
          [
            timeline[0] as Milestone,
            { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Unexpected', reason: 'rejected' },
          ],
          true,
          agent.agentId,
        ),
      ],
      opts,
    );
    expect(rejected.next).toMatchObject({ presence: 'Ready', missedOffers: 2 });
  });

  it('an answered offer clears the missed count; missedOffersAway 0 never sets Away', () => {
    const agent = { ...reserved(), missedOffers: 2 };
    const answered = reconcileAgentWork(
      agent,
      [
        leg(
          [
            { kind: 'start', segment: 'Ringing', at: 5_000 },
            { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Answered' },
            { kind: 'start', segment: 'Connected', at: 6_000 },
          ],
          false,
          agent.agentId,
        ),
      ],
      opts,
    );
    expect(answered.next.missedOffers).toBe(0);
    const never = reconcileAgentWork(
      { ...reserved(), missedOffers: 50 },
      [
        leg(
          [
            { kind: 'start', segment: 'Ringing', at: 5_000 },
            { kind: 'end', segment: 'Ringing', at: 9_000, outcome: 'Unexpected', reason: 'timed-out' },
          ],
          true,
          agent.agentId,
        ),
      ],
      { ...opts, missedOffersAway: 0 },
    );
    expect(never.next.presence).toBe('Ready');
  });

  it('a reservation whose offer never reached the interaction is kept during the grace period, then dropped as Failed', () => {
    const agent = reserved();
    expect(reconcileAgentWork(agent, [], { ...opts, now: 5_000 + 9_999 }).next).toBe(agent);
    const dropped = reconcileAgentWork(agent, [], { ...opts, now: 5_000 + 10_000 });
    expect(types(dropped)).toEqual(['ended:Ringing', 'workload-changed']);
    expect(dropped.events[0]?.data.outcome).toBe('Failed');
    expect(dropped.next.work).toEqual([]);
    expect(dropped.wake).toBe(true);
  });

  it('scoped to some interactions (`only`), leaves the work items of others as they are', () => {
    // Past the grace period, a work item whose legs were not given would be dropped as Failed; scoped to
    // another interaction (its legs not read), it is left alone, and the interaction in scope is reconciled.
    const agent = reserved();
    const now = 5_000 + 10_000;
    const other = { interactionId: 'i0000000-0000-4000-8000-000000000002', type: 'nonlive' as const, medium: 'Email' };
    const otherIds = {
      offerId: 'o0000000-0000-4000-8000-000000000002',
      channelId: 'c0000000-0000-4000-8000-000000000002',
    };
    const both = reserve({ ...agent, capacity: { ...agent.capacity, nonLive: 1 } }, other, otherIds, 5_000).next;
    const otherLeg: LegView = {
      interaction: other,
      leg: {
        channelId: otherIds.channelId,
        offerId: otherIds.offerId,
        agentId: agent.agentId,
        agentUsername: 'jane',
        timeline: [
          { kind: 'start', segment: 'Ringing', at: 5_000 },
          { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Answered' },
          { kind: 'start', segment: 'Connected', at: 6_000 },
        ],
        done: false,
      } as Leg,
    };
    const scoped = reconcileAgentWork(both, [otherLeg], { ...opts, now, only: new Set([other.interactionId]) });
    expect(types(scoped)).toEqual(['ended:Ringing', 'started:Connected']);
    expect(scoped.next.work.map((w) => w.interactionId)).toEqual([interaction.interactionId, other.interactionId]);
    // Unscoped, the same call drops the first reservation (no leg given for it, grace over).
    const whole = reconcileAgentWork(both, [otherLeg], { ...opts, now });
    expect(whole.next.work.map((w) => w.interactionId)).toEqual([other.interactionId]);
  });

  it('an abandoned reservation is dropped at once', () => {
    const agent = reserved();
    expect(reconcileAgentWork(agent, [], { ...opts, now: 5_001, abandon: new Set([ids.channelId]) }).next.work).toEqual(
      [],
    );
  });

  it('a leg the agent has no work item for is adopted and announced from its start', () => {
    const agent = ready();
    const change = reconcileAgentWork(
      agent,
      [
        leg(
          [
            { kind: 'start', segment: 'Ringing', at: 5_000 },
            { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Answered' },
            { kind: 'start', segment: 'Connected', at: 6_000 },
          ],
          false,
          agent.agentId,
        ),
      ],
      opts,
    );
    expect(types(change)).toEqual(['workload-changed', 'started:Ringing', 'ended:Ringing', 'started:Connected']);
    expect(change.next.work).toHaveLength(1);
  });

  it('legs of other agents are ignored', () => {
    const agent = ready();
    expect(
      reconcileAgentWork(agent, [leg([{ kind: 'start', segment: 'Ringing', at: 5_000 }], false, 'someone-else')], opts)
        .next,
    ).toBe(agent);
  });

  it('sequence numbers increase by one per agent event', () => {
    const agent = reserved();
    const change = reconcileAgentWork(
      agent,
      [
        leg(
          [
            { kind: 'start', segment: 'Ringing', at: 5_000 },
            { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Unexpected', reason: 'rejected' },
          ],
          true,
          agent.agentId,
        ),
      ],
      opts,
    );
    expect(change.events.map((e) => e.data.sequence)).toEqual([agent.activitySeq + 1, agent.activitySeq + 2]);
    expect(change.next.activitySeq).toBe(agent.activitySeq + 2);
  });
});
