import { eventTimeMs, type PresenceState } from '@cc/contracts';
import type { Direction, Interval, Outcome, Segment } from './buckets';

/** The fields of the agent-activity events summaries read (the rest is ignored). */
export type ActivityEvent =
  | {
      type: 'agent-activity.presence-changed';
      data: {
        agentId: string;
        occurredAt: string;
        presence: PresenceState;
        previous: { presence: PresenceState; startedAt: string; durationMs: number } | null;
      };
    }
  | {
      type: 'agent-activity.segment-started';
      data: SegmentData & { startedAt: string };
    }
  | {
      type: 'agent-activity.segment-ended';
      data: SegmentData & { startedAt: string; endedAt: string; outcome: Outcome | null };
    };

interface SegmentData {
  agentId: string;
  segment: Segment;
  interaction: { direction: 'Inbound' | 'Outbound' | 'Internal' };
  channel: { guid: string };
}

/** What one event says: intervals it closes (final) and intervals it opens. */
export interface EventIntervals {
  closed: Interval[];
  opened: Interval[];
}

/**
 * Epoch ms of an event time: the contracts' one shape (`2024-05-01T08:15:00.000Z`, validated before this runs) read
 * field by field, a few times faster than `Date.parse`, which stays for any other shape.
 */
export const ms = (iso: string): number => eventTimeMs(iso) ?? Date.parse(iso);
const direction = (d: string): Direction => (d === 'Outbound' ? 'outbound' : d === 'Internal' ? 'internal' : 'inbound');
// Interval keys become field names in the store: no '.' and no leading '$'.
const safe = (s: string) => s.replace(/[.$]/g, '_');

/** The key of a presence interval: the agent is in one presence state at a time, so its start names it. */
export const presenceKey = (start: number) => `p@${start}`;
/** The key of a segment interval: channel, segment and start. */
export const segmentKey = (channel: string, segment: string, start: number) => `s@${safe(channel)}@${segment}@${start}`;

/**
 * The intervals an agent-activity event opens and closes. Each event is self-contained (a presence change
 * carries the state it closes with its start and duration; a segment end carries its start), so intervals
 * come out the same whatever order the events arrive in. Workload changes carry nothing summaries count.
 */
export function intervalsOf(event: { type: string; data: unknown }): EventIntervals {
  const e = event as ActivityEvent;
  switch (e.type) {
    case 'agent-activity.presence-changed': {
      const at = ms(e.data.occurredAt);
      const closed: Interval[] = [];
      if (e.data.previous) {
        const start = ms(e.data.previous.startedAt);
        closed.push({
          kind: 'presence',
          key: presenceKey(start),
          state: e.data.previous.presence,
          start,
          end: start + e.data.previous.durationMs,
        });
      }
      return {
        closed,
        opened: [{ kind: 'presence', key: presenceKey(at), state: e.data.presence, start: at, end: null }],
      };
    }
    case 'agent-activity.segment-started': {
      const start = ms(e.data.startedAt);
      return {
        closed: [],
        opened: [
          {
            kind: 'segment',
            key: segmentKey(e.data.channel.guid, e.data.segment, start),
            segment: e.data.segment,
            dir: direction(e.data.interaction.direction),
            start,
            end: null,
            outcome: null,
          },
        ],
      };
    }
    case 'agent-activity.segment-ended': {
      const start = ms(e.data.startedAt);
      return {
        closed: [
          {
            kind: 'segment',
            key: segmentKey(e.data.channel.guid, e.data.segment, start),
            segment: e.data.segment,
            dir: direction(e.data.interaction.direction),
            start,
            end: Math.max(start, ms(e.data.endedAt)),
            outcome: e.data.segment === 'Ringing' ? (e.data.outcome ?? null) : null,
          },
        ],
        opened: [],
      };
    }
    default:
      return { closed: [], opened: [] };
  }
}
