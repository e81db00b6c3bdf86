import { percentile } from './stats';
import type { NotificationItem } from './webhook';

/** One notification's first arrival at the receiver, timed from the event that caused it. */
export interface NotificationTiming {
  kind: NotificationItem['notification'];
  interactionId: string;
  webhookId: string;
  agentId: string | null;
  /** The attempt that arrived (from `x-request-id: <webhook-id>:<attempt>`); null when the header is missing. */
  attempt: number | null;
  /** The event's time as the suite stamped it (`params.OccurredAt`), epoch ms; null when missing. */
  occurredAt: number | null;
  receivedAt: number;
  /** receivedAt - occurredAt: event to receiver. Null without OccurredAt. */
  latencyMs: number | null;
}

/** What the simulated desk knows of the call, to set a notification beside the desk's own requests. */
export interface DeskFacts {
  /** Accepted offers, each when the desk got the accept's answer. */
  assignments: { agentId: string; at: number }[];
  /** When the desk got the release's answer (or sent the caller's hang-up). */
  releasedAt?: number;
  transferred: boolean;
}

/** A slow notification as the report lists it. */
export interface SlowNotification extends Omit<NotificationTiming, 'occurredAt' | 'receivedAt'> {
  occurredAt: string | null;
  receivedAt: string;
  transferred: boolean | null;
  /**
   * receivedAt minus when the desk got the answer to the request that caused it (the matching agent's accept, or
   * the release): negative when the notification arrived before the desk's own request returned.
   */
  sinceDeskAnswerMs: number | null;
}

/** The `x-request-id` attempt suffix; null when absent or not a number. */
export function attemptOf(requestId: string | undefined): number | null {
  const n = Number(requestId?.slice(requestId.lastIndexOf(':') + 1));
  return requestId?.includes(':') && Number.isInteger(n) && n > 0 ? n : null;
}

/**
 * Times a notification from its event's `OccurredAt`, the instant routing decided the assignment or release. That
 * is the one reference that names the right event: the desk's own clock cannot, because the notification may
 * arrive before the desk's accept returns (routing publishes before it answers), and a transferred call's second
 * AssignToAgent then matched the first accept, counting the whole first leg (30-60 s) as latency.
 */
export function timeNotification(
  item: NotificationItem,
  webhookId: string,
  receivedAt: number,
  requestId?: string,
): NotificationTiming {
  const raw = item.params?.OccurredAt;
  const occurredAt = typeof raw === 'string' && Number.isFinite(Date.parse(raw)) ? Date.parse(raw) : null;
  return {
    kind: item.notification,
    interactionId: item.objectid,
    webhookId,
    agentId: typeof item.params?.AgentId === 'string' ? item.params.AgentId : null,
    attempt: attemptOf(requestId),
    occurredAt,
    receivedAt,
    latencyMs: occurredAt === null ? null : receivedAt - occurredAt,
  };
}

/** When the desk got the answer to the request behind a notification (the same agent's latest accept, or the release). */
export function deskAnswerAt(t: NotificationTiming, desk: DeskFacts | undefined): number | null {
  if (!desk) return null;
  if (t.kind === 'Release') return desk.releasedAt ?? null;
  const mine = desk.assignments.filter((a) => a.agentId === t.agentId);
  return mine.at(-1)?.at ?? null;
}

/** Percentiles of the timed notifications (ms), and how many arrived on a retry. */
export function latencySummary(timings: NotificationTiming[]) {
  const samples = timings.flatMap((t) => (t.latencyMs === null ? [] : [t.latencyMs]));
  return {
    measuredFrom: "the event's OccurredAt (the suite's clock) to the receiver",
    samples: samples.length,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
    max: percentile(samples, 100),
    retried: timings.filter((t) => t.attempt !== null && t.attempt > 1).length,
  };
}

/** The n slowest notifications with what the desk saw, slowest first. */
export function slowest(
  timings: NotificationTiming[],
  deskOf: (interactionId: string) => DeskFacts | undefined,
  n: number,
): SlowNotification[] {
  return [...timings]
    .filter((t) => t.latencyMs !== null)
    .sort((a, b) => (b.latencyMs as number) - (a.latencyMs as number))
    .slice(0, n)
    .map((t) => {
      const desk = deskOf(t.interactionId);
      const at = deskAnswerAt(t, desk);
      return {
        ...t,
        occurredAt: t.occurredAt === null ? null : new Date(t.occurredAt).toISOString(),
        receivedAt: new Date(t.receivedAt).toISOString(),
        transferred: desk ? desk.transferred : null,
        sinceDeskAnswerMs: at === null ? null : t.receivedAt - at,
      };
    });
}
