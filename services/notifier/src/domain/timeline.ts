// A delivery's timeline in this instance, kept in memory only, so that a slow notification can be explained from
// the log: where the time went between the event and the outcome (consumer lag, the record write, waiting behind
// an earlier delivery of the interaction or a full lane, the POST, the outcome write, a retry timer).

/** Instants (epoch ms) of one delivery's way through the pipeline; each step sets its own. */
export interface Timeline {
  /** The interaction event's time (its `time`); null when unknown (a delivery taken over from the store). */
  eventAt: number | null;
  /** The consumer handed it to the pipeline (or recovery or a replay did). */
  acceptedAt: number;
  /** Its record was durable (write 1). */
  recordedAt?: number;
  /** It last became due and joined its endpoint's lane. */
  queuedAt?: number;
  /** The current attempt's POST started. */
  sentAt?: number;
  /** The current attempt's POST ended (answer, timeout or error). */
  answeredAt?: number;
}

/** The timeline as one log line shows it: milliseconds from the event (or from acceptance when the event time is unknown). */
export interface TimelineView {
  from: 'event' | 'accepted';
  fromAt: string;
  totalMs: number;
  consumedMs: number;
  recordedMs: number | null;
  queuedMs: number | null;
  attemptStartMs: number | null;
  attemptEndMs: number | null;
  outcomeWrittenMs: number;
}

/** Whether a delivery finished at `doneAt` is slow enough to log its timeline. */
export function isSlow(t: Timeline, doneAt: number, slowMs: number): boolean {
  return slowMs > 0 && doneAt - (t.eventAt ?? t.acceptedAt) > slowMs;
}

/** The offsets of each step from the event, for the log. */
export function timelineView(t: Timeline, doneAt: number): TimelineView {
  const from = t.eventAt ?? t.acceptedAt;
  const off = (x: number | undefined) => (x === undefined ? null : x - from);
  return {
    from: t.eventAt === null ? 'accepted' : 'event',
    fromAt: new Date(from).toISOString(),
    totalMs: doneAt - from,
    consumedMs: t.acceptedAt - from,
    recordedMs: off(t.recordedAt),
    queuedMs: off(t.queuedAt),
    attemptStartMs: off(t.sentAt),
    attemptEndMs: off(t.answeredAt),
    outcomeWrittenMs: doneAt - from,
  };
}
