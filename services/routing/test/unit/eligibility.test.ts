import {
  capacityKeyOf,
  decide,
  decisionSignature,
  exclusionReason,
  nextRoutingChangeAt,
  personalQueueMode,
  rankCandidates,
  ruleWithoutRoom,
  skillsAt,
} from '../../src/domain/eligibility';
import { rng } from '../builders/rng';
import { agentView, request } from '../builders/routing.builders';

const s = 1000;

describe('capacity per interaction type', () => {
  it('maps live → calls, chat → semiLive, nonlive → nonLive', () => {
    expect(capacityKeyOf('live')).toBe('calls');
    expect(capacityKeyOf('chat')).toBe('semiLive');
    expect(capacityKeyOf('nonlive')).toBe('nonLive');
  });

  it.each([
    ['live', { calls: 1, semiLive: 0, nonLive: 0 }, 'no free calls capacity (1/1)'],
    ['chat', { calls: 0, semiLive: 2, nonLive: 0 }, 'no free semiLive capacity (2/2)'],
    ['nonlive', { calls: 0, semiLive: 0, nonLive: 5 }, 'no free nonLive capacity (5/5)'],
  ] as const)('a full %s bucket excludes the agent; the other buckets do not matter', (type, workload, reason) => {
    const agent = agentView({ workload });
    const req = request({ type });
    expect(exclusionReason(agent, req, { kind: 'none' }, [])).toBe(reason);
    const other = type === 'live' ? 'chat' : 'live';
    expect(exclusionReason(agent, request({ type: other }), { kind: 'none' }, [])).toBeNull();
  });

  it('a zero capacity for a type never takes that type', () => {
    const agent = agentView({ capacity: { calls: 0, semiLive: 2, nonLive: 5 } });
    expect(decide(request({ type: 'live' }), [agent], 0).candidates[0]?.excluded).toBe('no free calls capacity (0/0)');
    expect(decide(request({ type: 'chat' }), [agent], 0).winner).toBe(agent.agentId);
  });
});

describe('presence', () => {
  it.each(['Away', 'ExtendedAway', 'LoggedOut'] as const)('%s is not eligible for routing', (presence) => {
    const d = decide(request(), [agentView({ presence })], 0);
    expect(d.winner).toBeNull();
    expect(d.rule).toBe('no-eligible-agent');
    expect(d.candidates[0]?.excluded).toBe(`presence ${presence}`);
  });

  it('Ready is eligible', () => {
    const agent = agentView();
    expect(decide(request(), [agent], 0).winner).toBe(agent.agentId);
  });
});

describe('skills', () => {
  it('every mandatory skill must be held, compared case-insensitively', () => {
    const req = request({
      skills: [
        { name: 'English', expiryafter: null },
        { name: 'Printers', expiryafter: null },
      ],
    });
    const both = agentView({ skills: ['ENGLISH', 'printers'] });
    const one = agentView({ skills: ['english'] });
    const d = decide(req, [one, both], 0);
    expect(d.winner).toBe(both.agentId);
    expect(d.candidates.find((c) => c.agentId === one.agentId)?.excluded).toBe('missing skill Printers');
  });

  it('lists every missing skill', () => {
    const req = request({
      skills: [
        { name: 'English', expiryafter: null },
        { name: 'French', expiryafter: null },
      ],
    });
    expect(decide(req, [agentView()], 0).candidates[0]?.excluded).toBe('missing skill English, French');
  });

  it('a skill with expiryafter is required until that many seconds after queue entry, then optional', () => {
    const req = request({ queuedAt: 10 * s, skills: [{ name: 'Printers', expiryafter: 30 }] });
    expect(skillsAt(req, 10 * s)).toEqual({ required: ['Printers'], optional: [] });
    expect(skillsAt(req, 40 * s - 1)).toEqual({ required: ['Printers'], optional: [] });
    expect(skillsAt(req, 40 * s)).toEqual({ required: [], optional: ['Printers'] });
    expect(skillsAt(req, 41 * s)).toEqual({ required: [], optional: ['Printers'] });
  });

  it('expiry boundary: excluded one millisecond before expiry, eligible exactly at expiry', () => {
    const req = request({ queuedAt: 0, skills: [{ name: 'Printers', expiryafter: 60 }] });
    const agent = agentView();
    expect(decide(req, [agent], 60 * s - 1).winner).toBeNull();
    expect(decide(req, [agent], 60 * s).winner).toBe(agent.agentId);
  });

  it('expiryafter 0 makes the skill optional: never required, used for ranking', () => {
    const req = request({ skills: [{ name: 'Spanish', expiryafter: 0 }] });
    expect(skillsAt(req, 0)).toEqual({ required: [], optional: ['Spanish'] });
    const without = agentView({ idleSince: 0 });
    const withSkill = agentView({ skills: ['spanish'], idleSince: 5 * s });
    const d = decide(req, [without, withSkill], 10 * s);
    expect(d.winner).toBe(withSkill.agentId);
    expect(d.rule).toBe('optional-skills-rank');
    expect(d.candidates.find((c) => c.agentId === withSkill.agentId)?.optionalSkillsMatched).toBe(1);
  });

  it('more optional skills rank first, then longest idle among equals', () => {
    const req = request({
      skills: [
        { name: 'A', expiryafter: 0 },
        { name: 'B', expiryafter: 0 },
      ],
    });
    const one = agentView({ skills: ['A'], idleSince: 0 });
    const twoRecent = agentView({ skills: ['a', 'b'], idleSince: 9 * s });
    const twoOld = agentView({ skills: ['A', 'B'], idleSince: 2 * s });
    const d = decide(req, [one, twoRecent, twoOld], 10 * s);
    expect(d.winner).toBe(twoOld.agentId);
    expect(d.rule).toBe('optional-skills-rank');
  });

  it('when every eligible agent matches the same optional skills, the rule is longest idle', () => {
    const req = request({ skills: [{ name: 'A', expiryafter: 0 }] });
    const a = agentView({ skills: ['A'], idleSince: 3 });
    const b = agentView({ skills: ['A'], idleSince: 1 });
    const d = decide(req, [a, b], 10);
    expect(d.winner).toBe(b.agentId);
    expect(d.rule).toBe('longest-idle');
  });
});

describe('longest idle', () => {
  it('picks the agent idle the longest (earliest idleSince)', () => {
    const recent = agentView({ idleSince: 5_000 });
    const oldest = agentView({ idleSince: 1_000 });
    const middle = agentView({ idleSince: 3_000 });
    const d = decide(request(), [recent, oldest, middle], 10_000);
    expect(d.winner).toBe(oldest.agentId);
    expect(d.rule).toBe('longest-idle');
    expect(d.candidates.map((c) => c.idleMs)).toEqual([5_000, 9_000, 7_000]);
  });

  it('ties on idle time are broken by username (case-insensitive), then id: deterministic', () => {
    const zed = agentView({ username: 'zed', idleSince: 100 });
    const amy = agentView({ username: 'Amy', idleSince: 100 });
    const bob = agentView({ username: 'bob', idleSince: 100 });
    expect(decide(request(), [zed, bob, amy], 1000).winner).toBe(amy.agentId);
    expect(decide(request(), [amy, zed, bob].reverse(), 1000).winner).toBe(amy.agentId);
    const twinA = agentView({ username: 'twin', idleSince: 1, agentId: 'b0000000-0000-4000-8000-000000000001' });
    const twinB = agentView({ username: 'TWIN', idleSince: 1, agentId: 'a0000000-0000-4000-8000-000000000001' });
    expect(
      rankCandidates([
        { agent: twinA, optional: 0 },
        { agent: twinB, optional: 0 },
      ])[0]?.agent,
    ).toBe(twinB);
  });

  it('an excluded agent never wins even if idle longer', () => {
    const idleButAway = agentView({ presence: 'Away', idleSince: 0 });
    const ready = agentView({ idleSince: 500 });
    expect(decide(request(), [idleButAway, ready], 1000).winner).toBe(ready.agentId);
  });
});

describe('personal queue', () => {
  const pq = { agent: 'JANE', loggedintimeout: 60, loggedouttimeout: 30 };

  it('while the named agent is logged in, only they may take it, until loggedintimeout', () => {
    const jane = agentView({ username: 'jane', idleSince: 50 * s });
    const other = agentView({ username: 'other', idleSince: 0 });
    const req = request({ personalQueue: pq });
    const d = decide(req, [other, jane], 10 * s);
    expect(d.winner).toBe(jane.agentId);
    expect(d.rule).toBe('personal-queue');
    expect(d.candidates.find((c) => c.agentId === other.agentId)?.excluded).toBe('personal queue reserved for jane');
  });

  it('logged in but busy or away: the interaction waits for them until loggedintimeout, then normal routing', () => {
    const jane = agentView({ username: 'jane', presence: 'Away' });
    const other = agentView({ username: 'other' });
    const req = request({ personalQueue: pq });
    const before = decide(req, [jane, other], 60 * s - 1);
    expect(before.winner).toBeNull();
    expect(before.candidates.find((c) => c.agentId === jane.agentId)?.excluded).toBe('presence Away');
    const after = decide(req, [jane, other], 60 * s);
    expect(after.winner).toBe(other.agentId);
    expect(after.rule).toBe('longest-idle');
  });

  it('the named agent needs capacity but not the skills during the window (the client asked for that person)', () => {
    const req = request({ personalQueue: pq, skills: [{ name: 'French', expiryafter: null }] });
    const jane = agentView({ username: 'jane' });
    expect(decide(req, [jane], 0).winner).toBe(jane.agentId);
    const busy = agentView({ username: 'jane', workload: { calls: 1, semiLive: 0, nonLive: 0 } });
    expect(decide(req, [busy], 0).candidates[0]?.excluded).toBe('no free calls capacity (1/1)');
    // After the window the skills apply again.
    expect(decide(req, [jane], 60 * s).candidates[0]?.excluded).toBe('missing skill French');
  });

  it('while the named agent is logged out, nobody takes it until loggedouttimeout, then normal routing', () => {
    const jane = agentView({ username: 'jane', presence: 'LoggedOut' });
    const other = agentView({ username: 'other' });
    const req = request({ personalQueue: pq });
    const waiting = decide(req, [jane, other], 30 * s - 1);
    expect(waiting.winner).toBeNull();
    expect(waiting.rule).toBe('personal-queue-wait');
    expect(waiting.candidates.every((c) => c.excluded === 'personal queue: waiting for jane (logged out)')).toBe(true);
    const released = decide(req, [jane, other], 30 * s);
    expect(released.winner).toBe(other.agentId);
  });

  it('an unknown agent counts as logged out', () => {
    const other = agentView({ username: 'other' });
    const req = request({ personalQueue: { agent: 'ghost', loggedintimeout: 100, loggedouttimeout: 10 } });
    expect(personalQueueMode(req, [other], 5 * s)).toEqual({ kind: 'wait', agent: 'ghost', until: 10 * s });
    expect(decide(req, [other], 10 * s).winner).toBe(other.agentId);
  });

  it('logging in during the logged-out wait switches to the logged-in window (both count from queue entry)', () => {
    const req = request({ personalQueue: { agent: 'jane', loggedintimeout: 120, loggedouttimeout: 30 } });
    const janeOut = agentView({ username: 'jane', presence: 'LoggedOut' });
    const janeIn = { ...janeOut, presence: 'Ready' as const };
    const other = agentView({ username: 'other' });
    expect(personalQueueMode(req, [janeOut, other], 20 * s).kind).toBe('wait');
    expect(decide(req, [janeIn, other], 50 * s).winner).toBe(janeIn.agentId);
    expect(personalQueueMode(req, [janeOut, other], 50 * s).kind).toBe('none');
  });

  it('zero timeouts mean no personal-queue effect', () => {
    const req = request({ personalQueue: { agent: 'jane', loggedintimeout: 0, loggedouttimeout: 0 } });
    const jane = agentView({ username: 'jane', idleSince: 10 });
    const other = agentView({ username: 'other', idleSince: 0 });
    expect(decide(req, [jane, other], 0).winner).toBe(other.agentId);
  });
});

describe('rejection cooldown', () => {
  it('an agent who rejected the interaction is not offered it again until the cooldown ends', () => {
    const jane = agentView({ username: 'jane', idleSince: 0 });
    const bob = agentView({ username: 'bob', idleSince: 5 });
    const req = request({ declined: [{ agentId: jane.agentId, until: 10_000 }] });
    const during = decide(req, [jane, bob], 9_999);
    expect(during.winner).toBe(bob.agentId);
    expect(during.candidates.find((c) => c.agentId === jane.agentId)?.excluded).toBe(
      'rejected this interaction recently',
    );
    expect(decide(req, [jane], 9_999).winner).toBeNull();
    expect(decide(req, [jane, bob], 10_000).winner).toBe(jane.agentId);
    expect(nextRoutingChangeAt(req, 0)).toBe(10_000);
  });

  it('presence is reported first: an Away agent who rejected is excluded for presence', () => {
    const jane = agentView({ presence: 'Away' });
    const req = request({ declined: [{ agentId: jane.agentId, until: 10_000 }] });
    expect(decide(req, [jane], 0).candidates[0]?.excluded).toBe('presence Away');
  });
});

describe('decision trace', () => {
  it('explains every candidate and names the winner and rule', () => {
    const req = request({ type: 'chat', skills: [{ name: 'English', expiryafter: null }] });
    const away = agentView({ username: 'away', presence: 'Away' });
    const full = agentView({ username: 'full', workload: { calls: 0, semiLive: 2, nonLive: 0 }, skills: ['English'] });
    const unskilled = agentView({ username: 'unskilled' });
    const good = agentView({ username: 'good', skills: ['english'] });
    const d = decide(req, [away, full, unskilled, good], 100);
    expect(d).toMatchObject({ at: 100, rule: 'longest-idle', interactionType: 'chat', winner: good.agentId });
    expect(d.candidates.map((c) => [c.username, c.excluded])).toEqual([
      ['away', 'presence Away'],
      ['full', 'no free semiLive capacity (2/2)'],
      ['unskilled', 'missing skill English'],
      ['good', null],
    ]);
  });

  it('no agents: no-eligible-agent', () => {
    expect(decide(request(), [], 0)).toMatchObject({ rule: 'no-eligible-agent', winner: null, candidates: [] });
  });

  it('the signature ignores times, so an unchanged non-assignment is recorded once', () => {
    const agent = agentView({ presence: 'Away' });
    expect(decisionSignature(decide(request(), [agent], 1))).toBe(decisionSignature(decide(request(), [agent], 99)));
    expect(decisionSignature(decide(request(), [agent], 1))).not.toBe(
      decisionSignature(decide(request(), [{ ...agent, presence: 'ExtendedAway' }], 1)),
    );
  });
});

describe('time-driven changes', () => {
  it('the next change is the earliest future skill expiry or personal-queue window end', () => {
    const req = request({
      queuedAt: 0,
      skills: [
        { name: 'A', expiryafter: 30 },
        { name: 'B', expiryafter: 0 },
        { name: 'C', expiryafter: null },
      ],
      personalQueue: { agent: 'x', loggedintimeout: 20, loggedouttimeout: 50 },
    });
    expect(nextRoutingChangeAt(req, 0)).toBe(20 * s);
    expect(nextRoutingChangeAt(req, 20 * s)).toBe(30 * s);
    expect(nextRoutingChangeAt(req, 30 * s)).toBe(50 * s);
    expect(nextRoutingChangeAt(req, 50 * s)).toBeNull();
    expect(nextRoutingChangeAt(request(), 0)).toBeNull();
  });
});

describe('ruleWithoutRoom: the no-winner rule known without a full decision', () => {
  it('null while some agent is Ready with room for the type, whatever else excludes it', () => {
    const busyCalls = agentView({ workload: { calls: 1, semiLive: 0, nonLive: 0 }, skills: [] });
    const req = request({ type: 'chat', skills: [{ name: 'French', expiryafter: null }] });
    // Room for chat but not the skill: decide finds no winner, yet only the full decision can tell.
    expect(decide(req, [busyCalls], 0).winner).toBeNull();
    expect(ruleWithoutRoom(req, [busyCalls], 0)).toBeNull();
    expect(ruleWithoutRoom(request({ type: 'live' }), [busyCalls], 0)).toBe('no-eligible-agent');
  });

  it('personal-queue-wait while the named agent is logged out and nobody has room', () => {
    const req = request({ personalQueue: { agent: 'jane', loggedintimeout: 60, loggedouttimeout: 30 } });
    const jane = agentView({ username: 'jane', presence: 'LoggedOut' });
    expect(ruleWithoutRoom(req, [jane], 29 * s)).toBe('personal-queue-wait');
    expect(ruleWithoutRoom(req, [jane], 30 * s)).toBe('no-eligible-agent');
  });

  it('agrees with decide on 2,000 random accounts whenever it answers', () => {
    // Seeded: a failure names a case that can be replayed.
    const { int } = rng(20261130);
    const presences = ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'] as const;
    const types = ['live', 'chat', 'nonlive'] as const;
    let answered = 0;
    for (let i = 0; i < 2000; i++) {
      const agents = Array.from({ length: int(5) }, (_, k) =>
        agentView({
          username: `u${k}`,
          presence: presences[int(presences.length)],
          capacity: { calls: int(2), semiLive: int(3), nonLive: int(3) },
          workload: { calls: int(2), semiLive: int(3), nonLive: int(3) },
          skills: int(2) ? ['French'] : [],
        }),
      );
      const req = request({
        type: types[int(types.length)],
        skills: int(2) ? [{ name: 'French', expiryafter: int(2) ? null : 20 }] : [],
        personalQueue: int(2) ? { agent: `u${int(6)}`, loggedintimeout: int(40), loggedouttimeout: int(40) } : null,
        declined: int(4) ? [] : [{ agentId: agents[0]?.agentId ?? 'none', until: int(50) * s }],
      });
      const now = int(60) * s;
      const rule = ruleWithoutRoom(req, agents, now);
      if (rule === null) continue;
      answered++;
      const d = decide(req, agents, now);
      expect({ case: i, winner: d.winner, rule: d.rule }).toEqual({ case: i, winner: null, rule });
    }
    // The generator reaches both outcomes often enough for the comparison to mean something.
    expect(answered).toBeGreaterThan(500);
    expect(answered).toBeLessThan(1900);
  });
});
