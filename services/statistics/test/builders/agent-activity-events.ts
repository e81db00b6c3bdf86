import { ids, t0 } from './interaction-events';

const at = (ms: number) => new Date(t0 + ms).toISOString();

/** Agent A's activity events for the call of `InteractionEvents` answered at 6 s, wrap 66–70 s (ms after t0). */
export function agentActivityScript(interactionId = ids.interaction, channelId = ids.channelA) {
  let sequence = 0;
  const core = (ms: number) => ({
    agentId: ids.agentA,
    agentUsername: 'alice',
    occurredAt: at(ms),
    sequence: ++sequence,
  });
  const interaction = {
    guid: interactionId,
    medium: 'Phone',
    mediumManager: 'CC',
    direction: 'Inbound',
    interactionType: 'live',
  };
  const channel = { guid: channelId };
  const started = (segment: string, ms: number) => ({
    type: 'agent-activity.segment-started',
    data: { ...core(ms), segment, startedAt: at(ms), interaction, channel },
  });
  const ended = (segment: string, from: number, to: number, outcome: string | null = null) => ({
    type: 'agent-activity.segment-ended',
    data: {
      ...core(to),
      segment,
      startedAt: at(from),
      endedAt: at(to),
      durationMs: to - from,
      status: 'Completed',
      interaction,
      channel,
      outcome,
    },
  });
  const workload = (ms: number, calls: number, previous: { calls: number; from: number } | null) => ({
    type: 'agent-activity.workload-changed',
    data: {
      ...core(ms),
      workload: { calls, semiLive: 0, nonLive: 0 },
      capacity: { calls: 1, semiLive: 2, nonLive: 5 },
      previous: previous
        ? {
            workload: { calls: previous.calls, semiLive: 0, nonLive: 0 },
            startedAt: at(previous.from),
            durationMs: ms - previous.from,
          }
        : null,
    },
  });
  return [
    {
      type: 'agent-activity.presence-changed',
      data: { ...core(-60_000), presence: 'Ready', eligibleForRouting: true, reason: null, previous: null },
    },
    workload(-60_000, 0, null),
    workload(5000, 1, { calls: 0, from: -60_000 }),
    started('Ringing', 5000),
    ended('Ringing', 5000, 6000, 'Answered'),
    started('Connected', 6000),
    ended('Connected', 6000, 66_000),
    started('Wrap', 66_000),
    ended('Wrap', 66_000, 70_000),
    workload(70_000, 0, { calls: 1, from: 5000 }),
  ];
}
