import { randomBytes } from 'node:crypto';
import type { Logger, Metrics } from '@cc/kit';
import {
  formatCursor,
  parseCursor,
  ResumeWindow,
  type StreamEvent,
  sseComment,
  sseMessage,
  sseRetry,
} from '../domain/event-stream';

/** Bounds and timings of the live event stream. */
export interface EventStreamOptions {
  /** Events kept for `Last-Event-ID` resume, all accounts together. */
  windowEvents: number;
  /** A comment line is sent to every open stream this often (ms). */
  heartbeatMs: number;
  /** A stream whose unsent output exceeds this many bytes is dropped (slow consumer). */
  maxBufferedBytes: number;
  /** A stream with this many events waiting behind a full socket is dropped (slow consumer). */
  maxBufferedEvents: number;
  /** The `retry:` sent on connect: how long clients wait before reconnecting (ms). */
  retryMs: number;
  logger: Logger;
  /** The service's registry: the hub's counters are read from it at scrape time. */
  metrics?: Metrics;
}

/** What the hub counts (exported at /metrics, read by tests). */
export interface EventStreamStats {
  sent: number;
  dropped: { slow: number; shutdown: number };
  resumed: { replayed: number; reset: number };
}

/** Where a stream's bytes go: the HTTP response, reduced to what the hub needs. */
export interface StreamSink {
  write(chunk: string): boolean;
  /** Bytes accepted by `write` but not yet handed to the socket. */
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
  /** Ends the connection at once (a slow consumer is not waited for). */
  destroy(): void;
}

interface Subscriber {
  accountId: string;
  sink: StreamSink;
  /** Events written since the socket last reported it had room. */
  waiting: number;
  /** A `drain` listener is registered (one at a time). */
  blocked: boolean;
  open: boolean;
}

/**
 * Fans the events this gateway instance reads from Kafka out to the open streams of each event's account (never to
 * another account's), keeps the resume window, sends heartbeats, and drops streams that cannot keep up.
 */
export class EventStreamHub {
  /** This run's cursor prefix: cursors of another instance or an earlier run are recognised as unknown. */
  readonly epoch = randomBytes(6).toString('base64url');
  private readonly window: ResumeWindow;
  private readonly byAccount = new Map<string, Set<Subscriber>>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** Counters since start. */
  readonly stats: EventStreamStats = { sent: 0, dropped: { slow: 0, shutdown: 0 }, resumed: { replayed: 0, reset: 0 } };

  constructor(private readonly options: EventStreamOptions) {
    this.window = new ResumeWindow(options.windowEvents);
    if (options.metrics) registerStreamMetrics(options.metrics, this);
  }

  /** Starts the heartbeat timer. */
  start(): void {
    this.heartbeat ??= setInterval(() => this.beat(), this.options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Open streams (all accounts). */
  get openStreams(): number {
    let n = 0;
    for (const set of this.byAccount.values()) n += set.size;
    return n;
  }

  /** Appends one consumed event to the window and writes it to its account's open streams. */
  publish(e: { accountId: string; type: string; json: string }): StreamEvent {
    const event = this.window.append(e);
    const subscribers = this.byAccount.get(e.accountId);
    if (subscribers) {
      const message = sseMessage(formatCursor(this.epoch, event.seq), event.type, event.json);
      for (const s of subscribers) this.write(s, message, true);
    }
    return event;
  }

  /**
   * Opens a stream for an account: `retry:`, then (with a `Last-Event-ID`) the account's events after it from the
   * window or a `stream.reset` event, then live events. Replay and subscription happen in one synchronous step, so
   * no event falls between them. Returns the function that closes it.
   */
  open(accountId: string, sink: StreamSink, lastEventId: string | undefined): () => void {
    const s: Subscriber = { accountId, sink, waiting: 0, blocked: false, open: true };
    this.write(s, sseRetry(this.options.retryMs), false);
    if (lastEventId !== undefined) {
      const resume = this.window.resume(accountId, parseCursor(this.epoch, lastEventId));
      if (resume.kind === 'replay') {
        this.stats.resumed.replayed += 1;
        for (const e of resume.events) this.write(s, sseMessage(formatCursor(this.epoch, e.seq), e.type, e.json), true);
      } else {
        this.stats.resumed.reset += 1;
        // The reset carries the current head as its id, so the client's next reconnect resumes from here.
        const data = JSON.stringify({ reason: resume.reason, lastEventId });
        this.write(s, sseMessage(formatCursor(this.epoch, this.window.head), 'stream.reset', data), false);
      }
    } else {
      this.write(s, sseComment('stream open'), false);
    }
    if (!s.open) return () => undefined; // already dropped while replaying
    let set = this.byAccount.get(accountId);
    if (!set) {
      set = new Set();
      this.byAccount.set(accountId, set);
    }
    set.add(s);
    return () => this.remove(s);
  }

  /** Ends every stream (shutdown: an open stream would keep the HTTP server from closing). */
  closeAll(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    for (const set of [...this.byAccount.values()]) {
      for (const s of [...set]) this.drop(s, 'shutdown');
    }
  }

  private beat(): void {
    const comment = sseComment('heartbeat');
    for (const set of this.byAccount.values()) for (const s of [...set]) this.write(s, comment, false);
  }

  private write(s: Subscriber, chunk: string, isEvent: boolean): void {
    if (!s.open) return;
    const room = s.sink.write(chunk);
    if (isEvent) this.stats.sent += 1;
    if (!room) {
      if (isEvent) s.waiting += 1;
      if (!s.blocked) {
        s.blocked = true;
        s.sink.once('drain', () => {
          s.blocked = false;
          s.waiting = 0;
        });
      }
    }
    const { maxBufferedBytes, maxBufferedEvents } = this.options;
    if (s.sink.writableLength > maxBufferedBytes || s.waiting > maxBufferedEvents) {
      this.options.logger.warn(
        { accountId: s.accountId, bufferedBytes: s.sink.writableLength, waitingEvents: s.waiting },
        'slow event stream dropped',
      );
      this.drop(s, 'slow');
    }
  }

  private drop(s: Subscriber, reason: 'slow' | 'shutdown'): void {
    if (!s.open) return;
    this.stats.dropped[reason] += 1;
    this.remove(s);
    s.sink.destroy();
  }

  private remove(s: Subscriber): void {
    if (!s.open) return;
    s.open = false;
    const set = this.byAccount.get(s.accountId);
    if (set?.delete(s) && set.size === 0) this.byAccount.delete(s.accountId);
  }
}

type Sample = { value: number; labels: Record<string, string> };

/** Registers the hub's gauges and counters as collectors read at scrape time (no prom-client import needed). */
function registerStreamMetrics(metrics: Metrics, hub: EventStreamHub): void {
  const add = (name: string, help: string, type: 'gauge' | 'counter', values: () => Sample[]) =>
    metrics.registry.registerMetric({
      name,
      help,
      type,
      aggregator: 'sum',
      get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
    } as never);
  add('gateway_event_streams', 'Open event streams', 'gauge', () => [{ value: hub.openStreams, labels: {} }]);
  add('gateway_event_stream_events_total', 'Events written to event streams', 'counter', () => [
    { value: hub.stats.sent, labels: {} },
  ]);
  add(
    'gateway_event_stream_dropped_total',
    'Event streams closed by the gateway: slow (buffer bound exceeded) or shutdown',
    'counter',
    () => Object.entries(hub.stats.dropped).map(([reason, value]) => ({ value, labels: { reason } })),
  );
  add(
    'gateway_event_stream_resumes_total',
    'Last-Event-ID resumes: replayed from the window, or reset (unknown or older than the window)',
    'counter',
    () => Object.entries(hub.stats.resumed).map(([outcome, value]) => ({ value, labels: { outcome } })),
  );
}
