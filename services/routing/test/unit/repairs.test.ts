import { planRepairs } from '../../src/domain/repairs';
import type { Leg, WorkItem } from '../../src/domain/types';

const opts = { now: 100_000, syncGraceMs: 3_000, reserveGraceMs: 10_000 };
const leg = (channelId: string, agentId: string, milestones: number, done = false): Leg => ({
  channelId,
  offerId: `o-${channelId}`,
  agentId,
  agentUsername: agentId,
  timeline: Array.from({ length: milestones }, (_, i) => ({ kind: 'start', segment: 'Ringing', at: i })),
  done,
});
const item = (channelId: string, interactionId: string, cursor: number, reservedAt = 0): WorkItem => ({
  interactionId,
  channelId,
  offerId: `o-${channelId}`,
  type: 'live',
  cursor,
  reservedAt,
});
const old = opts.now - 5_000;
const recent = opts.now - 1_000;

describe('repairs: legs against work lists', () => {
  it('in step: nothing to do', () => {
    const plan = planRepairs(
      [{ interactionId: 'i1', state: 'connected', legs: [leg('c1', 'a', 3)], updatedAt: old }],
      [{ agentId: 'a', work: [item('c1', 'i1', 3)] }],
      new Set(),
      opts,
    );
    expect(plan).toEqual({ sync: new Map(), archive: [], waiting: false });
  });

  it('an agent behind its leg is reconciled once past the grace period, not before', () => {
    const connected = { interactionId: 'i1', state: 'connected' as const, legs: [leg('c1', 'a', 3)], updatedAt: old };
    const agents = [{ agentId: 'a', work: [item('c1', 'i1', 1)] }];
    expect(planRepairs([connected], agents, new Set(), opts).sync).toEqual(new Map([['a', new Set(['i1'])]]));
    const fresh = planRepairs([{ ...connected, updatedAt: recent }], agents, new Set(), opts);
    expect(fresh.sync.size).toBe(0);
    expect(fresh.waiting).toBe(true);
  });

  it('a done leg the agent still holds, or a live leg the agent lost, is out of step', () => {
    const plan = planRepairs(
      [
        { interactionId: 'i1', state: 'queued', legs: [leg('c1', 'a', 2, true)], updatedAt: old },
        { interactionId: 'i2', state: 'offered', legs: [leg('c2', 'b', 1)], updatedAt: old },
      ],
      [
        { agentId: 'a', work: [item('c1', 'i1', 2)] },
        { agentId: 'b', work: [] },
      ],
      new Set(),
      opts,
    );
    expect(plan.sync).toEqual(
      new Map([
        ['a', new Set(['i1'])],
        ['b', new Set(['i2'])],
      ]),
    );
  });

  it('an ended interaction whose agents are in step is archived; otherwise it waits', () => {
    const ended = { interactionId: 'i1', state: 'ended' as const, legs: [leg('c1', 'a', 6, true)], updatedAt: recent };
    expect(planRepairs([ended], [{ agentId: 'a', work: [] }], new Set(), opts).archive).toEqual(['i1']);
    const behind = planRepairs([ended], [{ agentId: 'a', work: [item('c1', 'i1', 5)] }], new Set(), opts);
    expect(behind.archive).toEqual([]);
    expect(behind.waiting).toBe(true);
  });

  it('a reservation no leg knows (its offer never landed) is dropped after the reservation grace', () => {
    const orphan = [{ agentId: 'a', work: [item('cX', 'i9', 1, opts.now - 10_000)] }];
    expect(planRepairs([], orphan, new Set(), opts).sync).toEqual(new Map([['a', new Set(['i9'])]]));
    const young = [{ agentId: 'a', work: [item('cX', 'i9', 1, opts.now - 9_999)] }];
    expect(planRepairs([], young, new Set(), opts)).toEqual({ sync: new Map(), archive: [], waiting: true });
  });

  it('interactions changed in this pass are skipped (their change reconciled its agents already)', () => {
    const plan = planRepairs(
      [{ interactionId: 'i1', state: 'queued', legs: [leg('c1', 'a', 2, true)], updatedAt: old }],
      [{ agentId: 'a', work: [item('c1', 'i1', 1)] }],
      new Set(['i1']),
      opts,
    );
    expect(plan).toEqual({ sync: new Map(), archive: [], waiting: false });
  });

  it('legs of agents that no longer exist are ignored', () => {
    const plan = planRepairs(
      [{ interactionId: 'i1', state: 'ended', legs: [leg('c1', 'gone', 2, true)], updatedAt: old }],
      [],
      new Set(),
      opts,
    );
    expect(plan).toEqual({ sync: new Map(), archive: ['i1'], waiting: false });
  });
});
