import type { InteractionRecord } from '@cc/contracts';
import {
  agentsByPresence,
  applyEvent,
  emptyLiveState,
  interactionsFromRecords,
  queues,
  type StreamEvent,
  serviceLevel,
} from '../src/live-state';

const t0 = Date.parse('2026-01-01T10:00:00.000Z');
let n = 0;
function ev(type: string, offsetMs: number, data: Record<string, unknown>): StreamEvent {
  const time = new Date(t0 + offsetMs).toISOString();
  return { id: `e${++n}`, type, time, data: { occurredAt: time, ...data } };
}

describe('live state from the event stream', () => {
  it('puts a queued call in its route, moves it to the agent on assignment and counts the answer time', () => {
    const s = emptyLiveState();
    s.routes.add('Billing');
    applyEvent(s, ev('interaction.queued', 0, { interactionId: 'i1', route: 'Support' }));
    applyEvent(s, ev('interaction.queued', 5000, { interactionId: 'i2', route: 'Support' }));
    expect(queues(s, t0 + 30_000)).toEqual([
      { route: 'Billing', waiting: 0, oldestWaitSeconds: null, withAgents: 0 },
      { route: 'Support', waiting: 2, oldestWaitSeconds: 30, withAgents: 0 },
    ]);
    applyEvent(s, ev('interaction.offered', 10_000, { interactionId: 'i1', agentId: 'a1' }));
    applyEvent(s, ev('interaction.assigned', 12_000, { interactionId: 'i1', agentId: 'a1' }));
    expect(queues(s, t0 + 30_000)[1]).toEqual({ route: 'Support', waiting: 1, oldestWaitSeconds: 25, withAgents: 1 });
    expect(s.interactions.get('i1')).toMatchObject({ stage: 'connected', agentId: 'a1' });
    expect(serviceLevel(s)).toBe(100);
  });

  it('counts a call released while waiting as abandoned (service level falls) and forgets it', () => {
    const s = emptyLiveState();
    applyEvent(s, ev('interaction.queued', 0, { interactionId: 'i1', route: 'R' }));
    applyEvent(s, ev('interaction.assigned', 40_000, { interactionId: 'i1', agentId: 'a' }));
    applyEvent(s, ev('interaction.queued', 0, { interactionId: 'i2', route: 'R' }));
    applyEvent(s, ev('interaction.assigned', 3_000, { interactionId: 'i2', agentId: 'a' }));
    applyEvent(s, ev('interaction.queued', 0, { interactionId: 'i3', route: 'R' }));
    applyEvent(s, ev('interaction.released', 9_000, { interactionId: 'i3' }));
    expect(s.interactions.has('i3')).toBe(false);
    expect(serviceLevel(s, 20)).toBe(33);
  });

  it('applies an event once even when a resumed stream sends it again', () => {
    const s = emptyLiveState();
    const q = ev('interaction.queued', 0, { interactionId: 'i1', route: 'R' });
    expect(applyEvent(s, q)).toBe(true);
    applyEvent(s, ev('interaction.released', 1000, { interactionId: 'i1' }));
    expect(applyEvent(s, q)).toBe(false);
    expect(s.interactions.size).toBe(0);
  });

  it('tracks agents by presence and workload', () => {
    const s = emptyLiveState();
    applyEvent(s, ev('agent-activity.presence-changed', 0, { agentId: 'a', agentUsername: 'zoe', presence: 'Ready' }));
    applyEvent(s, ev('agent-activity.presence-changed', 0, { agentId: 'b', agentUsername: 'al', presence: 'Ready' }));
    applyEvent(
      s,
      ev('agent-activity.workload-changed', 0, { agentId: 'a', workload: { calls: 1, semiLive: 0, nonLive: 2 } }),
    );
    applyEvent(s, ev('agent-activity.presence-changed', 0, { agentId: 'b', presence: 'Away' }));
    const groups = agentsByPresence(s);
    expect(groups.map((g) => [g.presence, g.agents.map((a) => a.username)])).toEqual([
      ['Ready', ['zoe']],
      ['Away', ['al']],
      ['ExtendedAway', []],
      ['LoggedOut', []],
    ]);
    expect(s.agents.get('a')?.workload).toEqual({ calls: 1, semiLive: 0, nonLive: 2 });
  });
});

describe('live state from statistics records (no event stream)', () => {
  const record = (guid: string, status: string, agentEvents: string[] | null): InteractionRecord =>
    ({
      guid,
      status,
      start: new Date(t0).toISOString(),
      interactionPlanMapping: { addressName: 'Support', mappingName: 'Default', interactionPlanName: 'P' },
      channels: [
        { guid: 'c0', offset: 0, duration: 0, endReason: null, party: { id: null, role: 'External' }, events: [] },
        ...(agentEvents
          ? [
              {
                guid: 'c1',
                offset: 0,
                duration: 0,
                endReason: null,
                party: { id: 'agent-1', role: 'Agent' },
                events: agentEvents.map((type) => ({ type, offset: 0 })),
              },
            ]
          : []),
      ],
    }) as unknown as InteractionRecord;

  it('an in-progress record without an agent channel waits; with one it is at the agent; completed ones are gone', () => {
    const s = emptyLiveState();
    interactionsFromRecords(s, [
      record('w', 'InProgress', null),
      record('c', 'InProgress', ['Ringing', 'Connected']),
      record('d', 'Completed', ['Ringing', 'Connected', 'Wrap']),
    ]);
    expect(queues(s, t0 + 7000)).toEqual([{ route: 'Support', waiting: 1, oldestWaitSeconds: 7, withAgents: 1 }]);
    expect(s.interactions.get('c')).toMatchObject({ stage: 'connected', agentId: 'agent-1' });
  });
});
