import { randomUUID } from 'node:crypto';

/** Builds agent-activity events of one agent as routing emits them (times as ISO strings). */
export class AgentEvents {
  private seq = 0;
  constructor(
    readonly agentId: string = randomUUID(),
    readonly username = 'alice',
  ) {}

  private core(at: string) {
    this.seq++;
    return { agentId: this.agentId, agentUsername: this.username, occurredAt: at, sequence: this.seq };
  }

  presence(at: string, presence: string, previous: { presence: string; since: string } | null = null) {
    return {
      type: 'agent-activity.presence-changed',
      data: {
        ...this.core(at),
        presence,
        eligibleForRouting: presence === 'Ready',
        reason: null,
        previous: previous && {
          presence: previous.presence,
          eligibleForRouting: previous.presence === 'Ready',
          reason: null,
          startedAt: previous.since,
          durationMs: Date.parse(at) - Date.parse(previous.since),
        },
      },
    };
  }

  segmentStarted(at: string, segment: string, channel: string, direction = 'Inbound') {
    return {
      type: 'agent-activity.segment-started',
      data: {
        ...this.core(at),
        segment,
        startedAt: at,
        interaction: { guid: channel, medium: 'Phone', mediumManager: 'CC', direction, interactionType: 'live' },
        channel: { guid: channel },
      },
    };
  }

  segmentEnded(
    start: string,
    end: string,
    segment: string,
    channel: string,
    outcome: string | null = null,
    direction = 'Inbound',
  ) {
    return {
      type: 'agent-activity.segment-ended',
      data: {
        ...this.core(end),
        segment,
        startedAt: start,
        endedAt: end,
        durationMs: Date.parse(end) - Date.parse(start),
        status: 'Completed',
        interaction: { guid: channel, medium: 'Phone', mediumManager: 'CC', direction, interactionType: 'live' },
        channel: { guid: channel },
        outcome,
      },
    };
  }
}

/** Epoch ms of an ISO time. */
export const t = (iso: string) => Date.parse(iso);
