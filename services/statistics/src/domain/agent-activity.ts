import { hourOf } from './time';

/** The stored form of one agent activity (times in ms since the epoch; `end` null while it runs). */
export interface ActivityItem {
  agentId: string;
  type: 'Presence' | 'Workload' | 'Interaction';
  category: string | null;
  name: string | null;
  eligibleForRouting: boolean | null;
  start: number;
  end: number | null;
  status: string | null;
  reason: string | null;
  interaction: { guid: string; medium: string; mediumManager: string; direction: string } | null;
  channel: { guid: string | null } | null;
  workload: { calls: number; semiLive: number; nonLive: number } | null;
}

/**
 * One write of an activity: `open` for a started activity (kept only until its closed form exists),
 * `closed` for a finished one. Both are keyed by the activity's natural key, so redelivery rewrites the same item.
 */
export interface ActivityWrite {
  kind: 'open' | 'closed';
  key: string;
  hour: number;
  item: ActivityItem;
}

type Workload = { calls: number; semiLive: number; nonLive: number };
interface Ref {
  guid: string;
  medium: string;
  mediumManager: string;
  direction: string;
}

/** The agent-activity event data this builder reads (validated against the contract before it gets here). */
export type AgentActivityEvent =
  | {
      type: 'agent-activity.presence-changed';
      data: {
        agentId: string;
        occurredAt: string;
        presence: string;
        eligibleForRouting: boolean;
        reason: string | null;
        previous: {
          presence: string;
          eligibleForRouting: boolean;
          reason?: string | null;
          startedAt: string;
          durationMs: number;
        } | null;
      };
    }
  | {
      type: 'agent-activity.workload-changed';
      data: {
        agentId: string;
        occurredAt: string;
        workload: Workload;
        previous: { workload: Workload; startedAt: string; durationMs: number } | null;
      };
    }
  | {
      type: 'agent-activity.segment-started';
      data: { agentId: string; segment: string; startedAt: string; interaction: Ref; channel: { guid: string } };
    }
  | {
      type: 'agent-activity.segment-ended';
      data: {
        agentId: string;
        segment: string;
        startedAt: string;
        durationMs: number;
        status?: string;
        interaction: Ref;
        channel: { guid: string };
      };
    };

/** Interaction segments that are activities of their own; HeldExternalParty runs inside Connected and is not. */
const interactionCategories = new Set(['Ringing', 'Connected', 'Wrap']);

/** The natural key of an activity: agent, type, start and (for interaction segments) segment and channel. */
export function activityKey(item: Pick<ActivityItem, 'agentId' | 'type' | 'start' | 'category' | 'channel'>): string {
  const tail = item.type === 'Interaction' ? `~${item.category}~${item.channel?.guid ?? ''}` : '';
  // No "." or leading "$": the key is a field name in the store.
  return `${item.agentId}~${item.type}~${item.start}${tail}`;
}

function write(kind: ActivityWrite['kind'], item: ActivityItem): ActivityWrite {
  return { kind, key: activityKey(item), hour: hourOf(item.start), item };
}

/**
 * An activity item with every field, always in the same order (one object shape): spreading a template of nulls and
 * overriding some of its fields took V8's slow path, ~30 µs per event.
 */
export function activityItem(
  agentId: string,
  type: ActivityItem['type'],
  start: number,
  end: number | null,
  f: Partial<Omit<ActivityItem, 'agentId' | 'type' | 'start' | 'end'>>,
): ActivityItem {
  return {
    agentId,
    type,
    category: f.category ?? null,
    name: f.name ?? null,
    eligibleForRouting: f.eligibleForRouting ?? null,
    start,
    end,
    status: f.status ?? null,
    reason: f.reason ?? null,
    interaction: f.interaction ?? null,
    channel: f.channel ?? null,
    workload: f.workload ?? null,
  };
}

const workloadOf = (w: Workload): Workload => ({ calls: w.calls, semiLive: w.semiLive, nonLive: w.nonLive });
const refOf = (r: Ref) => ({ guid: r.guid, medium: r.medium, mediumManager: r.mediumManager, direction: r.direction });

/**
 * The activity writes one agent-activity event implies: a presence or workload change closes the previous
 * state and opens the new one; a segment start opens an Interaction item and its end closes it.
 */
export function activityWrites(event: AgentActivityEvent): ActivityWrite[] {
  switch (event.type) {
    case 'agent-activity.presence-changed': {
      const d = event.data;
      const out: ActivityWrite[] = [];
      if (d.previous) {
        const p = d.previous;
        const start = Date.parse(p.startedAt);
        out.push(
          write(
            'closed',
            activityItem(d.agentId, 'Presence', start, start + p.durationMs, {
              category: p.presence,
              name: p.presence,
              eligibleForRouting: p.eligibleForRouting,
              reason: p.reason ?? null,
            }),
          ),
        );
      }
      out.push(
        write(
          'open',
          activityItem(d.agentId, 'Presence', Date.parse(d.occurredAt), null, {
            category: d.presence,
            name: d.presence,
            eligibleForRouting: d.eligibleForRouting,
            reason: d.reason,
          }),
        ),
      );
      return out;
    }
    case 'agent-activity.workload-changed': {
      const d = event.data;
      const out: ActivityWrite[] = [];
      if (d.previous) {
        const start = Date.parse(d.previous.startedAt);
        out.push(
          write(
            'closed',
            activityItem(d.agentId, 'Workload', start, start + d.previous.durationMs, {
              workload: workloadOf(d.previous.workload),
            }),
          ),
        );
      }
      out.push(
        write(
          'open',
          activityItem(d.agentId, 'Workload', Date.parse(d.occurredAt), null, { workload: workloadOf(d.workload) }),
        ),
      );
      return out;
    }
    case 'agent-activity.segment-started': {
      const d = event.data;
      if (!interactionCategories.has(d.segment)) return [];
      return [
        write(
          'open',
          activityItem(d.agentId, 'Interaction', Date.parse(d.startedAt), null, {
            category: d.segment,
            status: 'InProgress',
            interaction: refOf(d.interaction),
            channel: { guid: d.channel.guid },
          }),
        ),
      ];
    }
    case 'agent-activity.segment-ended': {
      const d = event.data;
      if (!interactionCategories.has(d.segment)) return [];
      const start = Date.parse(d.startedAt);
      return [
        write(
          'closed',
          activityItem(d.agentId, 'Interaction', start, start + d.durationMs, {
            category: d.segment,
            status: d.status ?? 'Completed',
            interaction: refOf(d.interaction),
            channel: { guid: d.channel.guid },
          }),
        ),
      ];
    }
    default:
      return [];
  }
}

/** The API item of a stored activity; a running one lasts until `now`. */
export function toActivityView(item: ActivityItem, now: number) {
  return {
    agentId: item.agentId,
    type: item.type,
    category: item.category,
    name: item.name,
    eligibleForRouting: item.eligibleForRouting,
    start: new Date(item.start).toISOString(),
    status: item.status,
    duration: Math.max(0, (item.end ?? now) - item.start),
    reason: item.reason,
    interaction: item.interaction,
    channel: item.channel,
    workload: item.workload,
  };
}
