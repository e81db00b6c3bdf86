import type { CloudEvent, EventSchemas } from '@cc/bus';
import type { PresenceState } from '@cc/contracts';
import { intervalsOf } from '../domain/activity';
import type { Direction, Interval, Outcome, Segment } from '../domain/buckets';
import { RecentIds } from './recent-ids';

/** A fetched batch's message values, one after the other in `bytes`; message i ends at `ends[i]`. */
export interface EncodedBatch {
  topic: string;
  bytes: Uint8Array;
  ends: Int32Array;
}

/**
 * What reading a batch gave: how many leading messages were valid events (`handled`), and what they say, flat (a
 * structured clone of interval objects cost the receiving thread as much as parsing the events itself):
 * - per agent-activity event with intervals: `strings` id, account, agent; `nums` closed count, opened count;
 * - per interval: `strings` key, state or segment, direction, outcome (or ''); `nums` kind (0 presence, 1 segment),
 *   start, end (NaN: open);
 * - any other event (an account's flags): `nums` -1, the event in `others`.
 */
export interface ReadBatch {
  handled: number;
  /** Of the handled messages, those skipped as already applied (`recent`) or repeated in the batch. */
  duplicates: number;
  strings: string[];
  nums: Float64Array;
  others: CloudEvent[];
}

/** A {@link ReadBatch} as the ingest worker answers it: with the number the batch was posted under. */
export type ReadChunk = ReadBatch & { id: number };

/** One agent-activity event of a {@link ReadBatch}, or another event. */
export type ReadItem =
  | { id: string; accountId: string; agentId: string; closed: Interval[]; opened: Interval[] }
  | { event: CloudEvent };

function pushInterval(iv: Interval, strings: string[], nums: number[]): void {
  if (iv.kind === 'presence') {
    strings.push(iv.key, iv.state, '', '');
    nums.push(0, iv.start, iv.end ?? Number.NaN);
  } else {
    strings.push(iv.key, iv.segment, iv.dir, iv.outcome ?? '');
    nums.push(1, iv.start, iv.end ?? Number.NaN);
  }
}

/** The items of a {@link ReadBatch}, in order. */
export function* readItems(r: ReadBatch): Generator<ReadItem> {
  const { strings, nums, others } = r;
  let s = 0;
  let n = 0;
  let o = 0;
  const interval = (): Interval => {
    const kind = nums[n] as number;
    const start = nums[n + 1] as number;
    const endNum = nums[n + 2] as number;
    const end = Number.isNaN(endNum) ? null : endNum;
    n += 3;
    const key = strings[s] as string;
    const what = strings[s + 1] as string;
    const dir = strings[s + 2] as string;
    const outcome = strings[s + 3] as string;
    s += 4;
    return kind === 0
      ? { kind: 'presence', key, state: what as PresenceState, start, end }
      : {
          kind: 'segment',
          key,
          segment: what as Segment,
          dir: dir as Direction,
          start,
          end,
          outcome: outcome === '' ? null : (outcome as Outcome),
        };
  };
  while (n < nums.length) {
    const closedCount = nums[n] as number;
    if (closedCount < 0) {
      n++;
      yield { event: others[o++] as CloudEvent };
      continue;
    }
    const openedCount = nums[n + 1] as number;
    n += 2;
    const id = strings[s] as string;
    const accountId = strings[s + 1] as string;
    const agentId = strings[s + 2] as string;
    s += 3;
    const closed: Interval[] = [];
    const opened: Interval[] = [];
    for (let k = 0; k < closedCount; k++) closed.push(interval());
    for (let k = 0; k < openedCount; k++) opened.push(interval());
    yield { id, accountId, agentId, closed, opened };
  }
}

/**
 * Parses and validates a batch's messages in order, as the bus would (JSON, then the event contracts of the topic),
 * up to the first one that is not a valid event of a known type: the bus's per-event path takes it from there
 * (dead letter, unknown-type skip). Agent-activity events become their intervals; events with none (workload
 * changes) are read and give no item. Events whose ids are in `recent` (applied before) give none either, nor an
 * id's second event in the batch; the ids of the events read are pushed to `readIds`.
 */
export function readBatch(
  schemas: EventSchemas,
  batch: EncodedBatch,
  recent: { has(id: string): boolean },
  readIds: string[] = [],
): ReadBatch {
  const inBatch = new Set<string>();
  const buf = Buffer.from(batch.bytes.buffer, batch.bytes.byteOffset, batch.bytes.byteLength);
  const strings: string[] = [];
  const nums: number[] = [];
  const others: CloudEvent[] = [];
  let start = 0;
  let i = 0;
  let duplicates = 0;
  for (; i < batch.ends.length; i++) {
    const end = batch.ends[i] as number;
    const checked = schemas.checkConsumedText(buf.toString('utf8', start, end), batch.topic);
    start = end;
    if (checked.kind !== 'valid') break;
    const event = checked.event;
    // Applied before (a redelivery), or twice in this batch: handed back once.
    if (recent.has(event.id) || inBatch.has(event.id)) {
      duplicates++;
      continue;
    }
    inBatch.add(event.id);
    readIds.push(event.id);
    if (event.type.startsWith('agent-activity.')) {
      const { closed, opened } = intervalsOf(event as { type: string; data: unknown });
      if (!closed.length && !opened.length) continue;
      strings.push(event.id, event.accountid, (event.data as { agentId: string }).agentId);
      nums.push(closed.length, opened.length);
      for (const iv of closed) pushInterval(iv, strings, nums);
      for (const iv of opened) pushInterval(iv, strings, nums);
    } else {
      nums.push(-1);
      others.push(event);
    }
  }
  return { handled: i, duplicates, strings, nums: Float64Array.from(nums), others };
}

/**
 * The ingest worker's reading: batches read (numbered by the caller), and the ids of each remembered as applied only
 * when the caller says it applied that batch (`settle`). A batch the caller read but did not apply (after an earlier
 * chunk stopped at an invalid message, or a failure) leaves no id behind: a redelivery in other batch boundaries
 * reads those events again instead of skipping events never applied. Batches read at the same time do not see each
 * other's ids (applying is idempotent; this only saves work).
 */
export class BatchReader {
  private readonly recent = new RecentIds();
  private readonly unsettled = new Map<number, string[]>();

  constructor(private readonly schemas: EventSchemas) {}

  read(id: number, batch: EncodedBatch): ReadBatch {
    const ids: string[] = [];
    const read = readBatch(this.schemas, batch, this.recent, ids);
    this.unsettled.set(id, ids);
    return read;
  }

  /** The caller applied batch `id` (its ids are remembered), or will not (forgotten). */
  settle(id: number, applied: boolean): void {
    const ids = this.unsettled.get(id);
    this.unsettled.delete(id);
    if (applied && ids) for (const e of ids) this.recent.add(e);
  }

  /** Batches read and not settled yet. */
  pending(): number {
    return this.unsettled.size;
  }
}

/**
 * Copies the leading messages' values into one buffer of their own (moved to the worker, not copied again), up to
 * the first message without a value (the per-event path dead-letters it).
 */
export function encodeBatch(topic: string, values: (Buffer | null)[]): EncodedBatch {
  let n = 0;
  let total = 0;
  for (; n < values.length; n++) {
    const v = values[n];
    if (!v) break;
    total += v.length;
  }
  const bytes = new Uint8Array(total);
  const ends = new Int32Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i] as Buffer;
    bytes.set(v, at);
    at += v.length;
    ends[i] = at;
  }
  return { topic, bytes, ends };
}
