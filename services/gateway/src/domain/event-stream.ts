// Pure parts of the live event stream (GET /events/stream): resume cursors, the bounded resume window and the
// Server-Sent Events wire format. No I/O: the consumer and the HTTP handler drive them.

/** One event as the stream keeps it: its position, account, type and the envelope JSON as on Kafka. */
export interface StreamEvent {
  /** Position in this gateway instance's stream (1, 2, ...). */
  seq: number;
  accountId: string;
  type: string;
  /** The CloudEvents envelope, serialised once (one line: JSON.stringify escapes every newline). */
  json: string;
}

/**
 * The cursor sent as the SSE `id`: `<epoch>.<seq>`, where epoch names this instance's run, so a cursor from another
 * instance or from before a restart is recognised as unknown rather than misread as a position. Opaque to clients.
 */
export function formatCursor(epoch: string, seq: number): string {
  return `${epoch}.${seq}`;
}

/** The sequence number a `Last-Event-ID` points at in this run, or undefined when it is from another run or malformed. */
export function parseCursor(epoch: string, cursor: string): number | undefined {
  const dot = cursor.lastIndexOf('.');
  if (dot <= 0 || cursor.slice(0, dot) !== epoch) return undefined;
  const digits = cursor.slice(dot + 1);
  if (!/^\d{1,15}$/.test(digits)) return undefined;
  return Number(digits);
}

/** What a resume asked with `Last-Event-ID` gets. */
export type Resume =
  /** The events after the cursor (possibly none), all still in the window. */
  | { kind: 'replay'; events: StreamEvent[] }
  /** The cursor is unknown, or older than the window: events were lost, so the client must reload its state. */
  | { kind: 'reset'; reason: 'unknown-cursor' | 'outside-window' };

/**
 * The last `capacity` events of every account, in arrival order: what `Last-Event-ID` can resume from. A ring
 * buffer, so memory stays bounded whatever the traffic.
 */
export class ResumeWindow {
  private readonly ring: (StreamEvent | undefined)[];
  private next = 0;
  /** The seq of the newest event (0 before the first). */
  head = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error('window capacity must be a positive integer');
    this.ring = new Array(capacity);
  }

  /** Adds an event, giving it the next seq (evicting the oldest when full). */
  append(e: Omit<StreamEvent, 'seq'>): StreamEvent {
    this.head += 1;
    const event = { ...e, seq: this.head };
    this.ring[this.next] = event;
    this.next = (this.next + 1) % this.capacity;
    return event;
  }

  /** The seq of the oldest event still held (head + 1 when empty). */
  get oldest(): number {
    return Math.max(1, this.head - this.capacity + 1);
  }

  /**
   * The account's events after `afterSeq`; a reset when events after it were already evicted (some of them may
   * have been this account's) or when the cursor is ahead of anything this run produced.
   */
  resume(accountId: string, afterSeq: number | undefined): Resume {
    if (afterSeq === undefined || afterSeq > this.head) return { kind: 'reset', reason: 'unknown-cursor' };
    if (afterSeq < this.oldest - 1) return { kind: 'reset', reason: 'outside-window' };
    const events: StreamEvent[] = [];
    const count = this.head - afterSeq;
    for (let i = count; i >= 1; i--) {
      // The newest event sits just before `next`; walk forward from the first one after the cursor.
      const event = this.ring[(this.next - i + this.capacity * 2) % this.capacity];
      if (event && event.accountId === accountId) events.push(event);
    }
    return { kind: 'replay', events };
  }
}

/** One SSE message: `id`, `event` and `data` lines and the blank line that ends it. */
export function sseMessage(id: string, event: string, data: string): string {
  // `data` is one line of JSON; `event` is a CloudEvents type (no newlines by the envelope schema), guarded anyway.
  return `id: ${id}\nevent: ${event.replace(/[\r\n]/g, ' ')}\ndata: ${data}\n\n`;
}

/** An SSE comment line (ignored by clients; keeps proxies and load balancers from closing an idle stream). */
export function sseComment(text: string): string {
  return `: ${text.replace(/[\r\n]/g, ' ')}\n\n`;
}

/** The SSE `retry:` field: how long a client waits before reconnecting (ms). */
export function sseRetry(ms: number): string {
  return `retry: ${Math.max(0, Math.floor(ms))}\n\n`;
}
