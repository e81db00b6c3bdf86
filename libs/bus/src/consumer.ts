import {
  isConnectivityError,
  type Logger,
  type Metrics,
  retry,
  retryPolicies,
  runInContext,
  SpanKind,
  SpanStatusCode,
  startSpan,
  withSpan,
} from '@cc/kit';
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { CloudEvent } from './envelope';
import type { EventProducer } from './producer';
import { type EventSchemas, InvalidEventError } from './schemas';

/** Context handed to an event handler. */
export interface HandlerContext {
  topic: string;
  partition: number;
  offset: string;
  log: Logger;
}

/**
 * Remembers which events a consumer group has handled, so a redelivered event is handled once.
 * The consumer asks once per fetched batch and marks once before committing the batch's offsets.
 */
export interface Deduper {
  /** The ids among `eventIds` already handled. */
  seenMany(eventIds: string[]): Promise<Set<string>>;
  markMany(eventIds: string[]): Promise<void>;
}

/** Context handed to a batch handler. */
export interface BatchContext {
  topic: string;
  partition: number;
  log: Logger;
}

/** What {@link startConsumer} needs. */
export interface ConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: string[];
  schemas: EventSchemas;
  /** Used for dead-lettering. */
  producer: EventProducer;
  handler: (event: CloudEvent, ctx: HandlerContext) => Promise<void>;
  /**
   * Optional fast path for a synchronous in-memory handler (one that only buffers, for `flush` to write): each valid
   * new event of a fetched batch is parsed and handed to it in one tight loop, with no promise, span, logger or offset
   * resolve per event, and the parsed event dies young.
   * Events already seen (deduper, or twice in the batch) are skipped. At the first message that is not a valid event
   * (invalid, or of an unknown type), or if it throws, the batch goes on from that message through the per-event
   * path of `handler` (retries, dead letters), so it must be idempotent per event, as `handler`: an event it threw on
   * is handled again there. No span is opened per event (under `spans: 'batch'` it runs inside the batch's span);
   * events keep their own traceparent.
   */
  handleEach?: (event: CloudEvent, ctx: BatchContext) => void;
  /**
   * Optional fast path for a handler that parses and validates messages itself, off this thread (a worker thread):
   * it gets a fetched batch's messages as fetched and resolves to how many leading messages it handled (each a valid
   * event of a known type, applied or skipped as already seen), or to that count with how many of them it skipped as
   * seen (counted as duplicates in the consumer metric, as the per-event path counts them). It must stop at the first
   * message that is not: the
   * batch goes on from there through the per-event path of `handler` (which parses again, dead-letters, retries), as
   * it does for the whole batch if this rejects. So it must be idempotent per event, as `handler`. It sees no ids the
   * bus could mark, so it cannot be combined with a `deduper`; it takes the place of `handleEach`.
   */
  handleRaw?: (
    messages: KafkaMessage[],
    ctx: BatchContext,
  ) => Promise<number | { handled: number; duplicates: number }>;
  logger: Logger;
  metrics?: Metrics;
  deduper?: Deduper;
  /** Attempts for a failing handler before dead-lettering (default 4). */
  maxAttempts?: number;
  /** First retry delay in ms, doubled each attempt up to the `handler` retry policy's cap (default 200). */
  retryBaseMs?: number;
  /** Dead-letter topic (default `<groupId>.dlq`). */
  deadLetterTopic?: string;
  /**
   * Errors that mean "a dependency is down", not "this event is bad": retried without bound
   * (capped backoff) instead of dead-lettered, so a store restart loses nothing.
   */
  isInfrastructureError?: (err: unknown) => boolean;
  fromBeginning?: boolean;
  /**
   * Called once per fetched batch after its events were handled and before their ids are marked and offsets
   * committed, so a handler may buffer and write a whole batch at once (group commit). If it throws, nothing of
   * the batch is marked or committed and the batch is fetched again.
   */
  flush?: (ctx: { topic: string; partition: number; log: Logger }) => Promise<void>;
  /**
   * How long the group waits for a silent member before giving its partitions to the others (default
   * 10 s; heartbeats every tenth of it). A crashed instance's partitions wait this long for a new owner.
   */
  sessionTimeoutMs?: number;
  /**
   * Partitions handled at once (kafkajs `partitionsConsumedConcurrently`, default 1). Order is kept
   * within a partition either way; more lets one partition's commit wait overlap another's handling.
   */
  partitionsConsumedConcurrently?: number;
  /**
   * Most bytes fetched per partition at once (kafkajs `maxBytesPerPartition`, default 1 MiB). Larger batches
   * spread a batch's fixed costs (its flush, its commit) over more events.
   */
  maxBytesPerPartition?: number;
  /**
   * Batches whose `flush` may still be running when the consumer moves on to the next fetch (default 0: each batch
   * waits for its flush, then commits). With N > 0 a batch returns once handled and its write started; its ids are
   * marked and its offset committed when that write lands, in order per partition, so fetching and handling the
   * next batches overlap the store write and an offset is still committed only after its write is durable. A failed
   * flush rewinds its partition to the first uncommitted batch (fetched and handled again, like a crash would).
   */
  writesInFlight?: number;
  /**
   * With `writesInFlight`: how long `disconnect`/`stop` wait for the writes in flight to land and their offsets to
   * be committed (default 10 s). A write still running then is given up: its batches stay uncommitted and are
   * redelivered to the next owner (which rewrites the same keys), so a slow store cannot hold a shutdown past its
   * deadline.
   */
  drainTimeoutMs?: number;
  /**
   * `'event'` (default): a CONSUMER span per event, continuing the producer's trace, whose traceparent the handler
   * sees as the event's. `'batch'`: one CONSUMER span per fetched batch (a root, with the batch's size and offsets);
   * the handler runs inside it and sees each event's own traceparent. For consumers that send nothing on from what
   * they consume: a span per event cost ~10 % of such a consumer's CPU.
   */
  spans?: 'event' | 'batch';
}

/** How often the batch loop lets kafkajs heartbeat (kafkajs itself sends one at most every `heartbeatInterval`). */
const beatCheckMs = 100;

const groupMembershipErrors = new Set([
  'UNKNOWN_MEMBER_ID',
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'NOT_COORDINATOR_FOR_GROUP',
]);

/**
 * kafkajs re-joins the group when a batch fails with a raw membership error (the member was dropped or the group
 * rebalances), but gives up for good when that error comes wrapped by its retrier (a commit after a long pause):
 * unwrap it, so the consumer re-joins and the uncommitted batch is redelivered instead of the consumer stopping.
 */
export function asMembershipError(err: unknown): unknown {
  for (let e = err as { type?: string; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (e.type && groupMembershipErrors.has(e.type)) return e;
    e = e.cause as typeof e;
  }
  return err;
}

/** A logger built on first call, then reused. */
function lazyLog(make: () => Logger): () => Logger {
  let made: Logger | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** Default infrastructure-error test: MongoDB and Kafka connectivity failures (from the kit). */
export { isConnectivityError };

/**
 * Runs a consumer group with explicit commits: each message is validated (invalid → dead-letter at
 * once; a well-formed event of an unknown type is skipped and counted), deduplicated, handled with bounded retries (then dead-lettered with the error in headers),
 * and its offset committed only after that. Returns the consumer for shutdown.
 */
export async function startConsumer(opts: ConsumerOptions): Promise<Consumer> {
  if (opts.handleRaw && opts.deduper) throw new Error('handleRaw cannot be combined with a deduper (it sees no ids)');
  const log = opts.logger.child({ component: 'consumer', group: opts.groupId });
  const service = String(opts.logger.bindings().service ?? opts.groupId);
  const dlq = opts.deadLetterTopic ?? `${opts.groupId}.dlq`;
  const maxAttempts = opts.maxAttempts ?? 4;
  const baseMs = opts.retryBaseMs ?? 200;
  const isInfra = opts.isInfrastructureError ?? isConnectivityError;
  const heartbeatMs = Math.max(500, Math.floor((opts.sessionTimeoutMs ?? 10_000) / 10));
  const consumer = opts.kafka.consumer({
    groupId: opts.groupId,
    sessionTimeout: opts.sessionTimeoutMs ?? 10_000,
    heartbeatInterval: heartbeatMs,
    ...(opts.maxBytesPerPartition ? { maxBytesPerPartition: opts.maxBytesPerPartition } : {}),
  });
  const count = (topic: string, outcome: string, n = 1) =>
    opts.metrics?.consumedEvents.inc({ group: opts.groupId, topic, outcome }, n);

  /** A message is an event to handle, an unknown type to skip (a newer producer), or invalid (dead-lettered). */
  const parse = (
    topic: string,
    message: KafkaMessage,
  ): { message: KafkaMessage; event?: CloudEvent; error?: string; unknownType?: string } => {
    const checked = opts.schemas.checkConsumedText(message.value?.toString('utf8') ?? 'null', topic);
    if (checked.kind === 'valid') return { message, event: checked.event };
    if (checked.kind === 'unknown-type') return { message, unknownType: checked.type };
    return { message, error: checked.reason };
  };

  // Pipelined commits (writesInFlight > 0): per partition, a chain of commits in batch order, and an epoch that a
  // failed write or a rebalance bumps so that no later batch's commit can skip over offsets that were not written.
  const depth = opts.flush ? Math.max(0, opts.writesInFlight ?? 0) : 0;
  const lanes = new Map<string, { tail: Promise<void>; epoch: number }>();
  const inFlight = new Set<Promise<void>>();
  let draining = false;
  // Resolved when a shutdown's drain gives up on the writes in flight: every wait for a write ends, nothing commits.
  let gaveUp = false;
  let giveUp!: () => void;
  const givenUp = new Promise<void>((r) => {
    giveUp = r;
  });
  consumer.on(consumer.events.GROUP_JOIN, () => {
    for (const lane of lanes.values()) lane.epoch++;
  });

  await consumer.connect();
  for (const topic of opts.topics) await consumer.subscribe({ topic, fromBeginning: opts.fromBeginning ?? true });

  const deadLetter = async (
    topic: string,
    partition: number,
    message: KafkaMessage,
    reason: string,
    attempts: number,
  ) => {
    await opts.producer.sendRaw(dlq, [
      {
        key: message.key,
        value: message.value,
        headers: {
          ...(message.headers as Record<string, Buffer>),
          'x-dlq-error': reason.slice(0, 2000),
          'x-dlq-source-topic': topic,
          'x-dlq-source-partition': String(partition),
          'x-dlq-source-offset': message.offset,
          'x-dlq-attempts': String(attempts),
          'x-dlq-group': opts.groupId,
        },
      },
    ]);
    count(topic, 'dead_lettered');
  };

  await consumer.run({
    autoCommit: false,
    partitionsConsumedConcurrently: opts.partitionsConsumedConcurrently ?? 1,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
      const { topic, partition } = batch;
      opts.metrics?.consumerLag.set(
        { group: opts.groupId, topic, partition: String(partition) },
        Number(batch.offsetLag()),
      );
      // A batch fetched before a failed write's rewind or a rebalance must not commit (see `pipelined`).
      const laneKey = `${topic}/${partition}`;
      let lane = lanes.get(laneKey);
      if (!lane && depth > 0) {
        lane = { tail: Promise.resolve(), epoch: 0 };
        lanes.set(laneKey, lane);
      }
      const epoch = lane?.epoch ?? 0;
      // With a deduper (one lookup for all its ids) the batch is parsed up front; otherwise each message as it is
      // handled: a parsed event then dies young instead of living through the whole batch (minor GCs copying a batch
      // of events cost a consumer without deduper more than the parsing itself).
      const parsed = opts.deduper ? batch.messages.map((message) => parse(topic, message)) : undefined;
      const seen = new Set<string>();
      const lookUp = async (events: ReturnType<typeof parse>[]) => {
        const ids: string[] = [];
        for (const p of events) if (p.event) ids.push(p.event.id);
        if (opts.deduper && ids.length) for (const id of await opts.deduper.seenMany(ids)) seen.add(id);
      };
      if (parsed) await lookUp(parsed);
      const handled: string[] = [];
      let lastDone: string | undefined;
      let lastBeat = Date.now();
      const batchSpan =
        opts.spans === 'batch'
          ? startSpan(service, `${topic} process`, {
              kind: SpanKind.CONSUMER,
              attributes: {
                'messaging.system': 'kafka',
                'messaging.destination.name': topic,
                'messaging.destination.partition.id': String(partition),
                'messaging.batch.message_count': batch.messages.length,
                'cc.first_offset': batch.firstOffset() ?? '',
              },
            })
          : undefined;
      const loop = async () => {
        const from = opts.handleRaw
          ? await handleRaw(opts.handleRaw)
          : opts.handleEach
            ? await handleEach(opts.handleEach)
            : 0;
        await eachEvent(batch.messages, parsed, from);
      };
      /** The event-by-event path over some of the batch's messages, from `from`; false if the consumer stopped on the way. */
      const eachEvent = async (messages: KafkaMessage[], parsed: ReturnType<typeof parse>[] | undefined, from = 0) => {
        for (let i = from; i < messages.length; i++) {
          const message = messages[i] as KafkaMessage;
          const { event, error, unknownType } = parsed?.[i] ?? parse(topic, message);
          if (!isRunning() || isStale()) return false;
          // Child loggers only when something is logged: building one per event cost ~40 % of a consumer's CPU.
          const mlog = lazyLog(() => log.child({ topic, partition, offset: message.offset }));
          if (unknownType !== undefined) {
            // Forward compatibility: a type added to the topic after this consumer was built is not an error.
            count(topic, 'skipped_unknown_type');
            mlog().info({ eventType: unknownType }, 'event of an unknown type skipped');
          } else if (!event) {
            mlog().warn({ reason: error }, 'invalid event dead-lettered');
            await deadLetter(topic, partition, message, error ?? 'invalid', 0);
          } else if (seen.has(event.id)) {
            count(topic, 'duplicate');
            mlog().debug({ eventId: event.id }, 'duplicate event skipped');
          } else if (batchSpan) {
            await handleOne(
              event,
              message,
              lazyLog(() => mlog().child({ eventId: event.id, eventType: event.type })),
            );
            seen.add(event.id);
            handled.push(event.id);
          } else {
            // A consumer span continues the producer's trace (Kafka header, else the event's own traceparent); the
            // handler sees it as the event's traceparent, so what it records or sends next stays in the trace.
            const parent = message.headers?.traceparent?.toString() ?? event.traceparent;
            await withSpan(
              service,
              `${topic} process`,
              {
                kind: SpanKind.CONSUMER,
                parent,
                attributes: {
                  'messaging.system': 'kafka',
                  'messaging.destination.name': topic,
                  'cc.event_type': event.type,
                },
              },
              (traceparent) =>
                handleOne(
                  { ...event, traceparent },
                  message,
                  lazyLog(() => mlog().child({ eventId: event.id, eventType: event.type })),
                ),
            );
            seen.add(event.id); // the same event twice in one batch is handled once
            handled.push(event.id);
          }
          resolveOffset(message.offset);
          lastDone = message.offset;
          // An await per message costs more than the check: heartbeat when kafkajs might send one.
          const t = Date.now();
          if (t - lastBeat >= beatCheckMs) {
            lastBeat = t;
            await heartbeat();
          }
        }
        return true;
      };
      try {
        if (batchSpan) {
          try {
            await runInContext(batchSpan.ctx, loop);
          } catch (err) {
            batchSpan.span.recordException(err as Error);
            batchSpan.span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
            throw err;
          } finally {
            batchSpan.span.end();
          }
        } else await loop();
      } finally {
        if (lane && !draining && (handled.length || lastDone !== undefined)) {
          await pipelined(lane, handled, lastDone);
        } else {
          // While draining, earlier pipelined commits of this partition land first; after a failed one, none here.
          // A drain that gave up waits for nothing more, and commits nothing (see `drainTimeoutMs`).
          if (lane) await Promise.race([lane.tail, givenUp]);
          let current = !lane || lane.epoch === epoch;
          // Buffered writes first: a failed flush leaves the whole batch uncommitted (redelivered).
          if (opts.flush && (handled.length || lastDone !== undefined) && !gaveUp) {
            // A slow store must not cost the group membership: keep heartbeating while the batch is written.
            const beat = setInterval(() => void heartbeat().catch(() => undefined), heartbeatMs);
            try {
              const write = opts.flush({ topic, partition, log });
              await (lane ? Promise.race([write, givenUp]) : write);
            } finally {
              clearInterval(beat);
            }
          }
          if (gaveUp) current = false;
          // Mark, then commit (offset of the next message to read) only what was handled or dead-lettered.
          if (current && handled.length) await opts.deduper?.markMany(handled);
          if (current && lastDone !== undefined) {
            await consumer
              .commitOffsets([{ topic, partition, offset: (BigInt(lastDone) + 1n).toString() }])
              .catch((err) => {
                throw asMembershipError(err);
              });
          }
        }
      }

      /**
       * The synchronous fast path: hands the batch's valid new events to `handleEach` in order, up to the first message
       * it cannot take (returned: the per-event path goes on from there), then resolves the last offset it handled.
       */
      async function handleEach(each: NonNullable<ConsumerOptions['handleEach']>): Promise<number> {
        if (!isRunning() || isStale()) return 0;
        const messages = batch.messages;
        const ctx = { topic, partition, log };
        let i = 0;
        let duplicates = 0;
        for (; i < messages.length; i++) {
          const p = parsed?.[i] ?? parse(topic, messages[i] as KafkaMessage);
          const event = p.event;
          if (!event) break;
          if (seen.has(event.id)) {
            duplicates++;
            continue;
          }
          try {
            each(event, ctx);
          } catch (err) {
            log.warn(
              { err: (err as Error).message, topic, partition, offset: p.message.offset },
              'event fast path failed; handling the rest of the batch event by event',
            );
            break;
          }
          seen.add(event.id); // the same event twice in one batch is handled once
          handled.push(event.id);
        }
        if (i > 0) {
          if (i > duplicates) count(topic, 'handled', i - duplicates);
          if (duplicates) count(topic, 'duplicate', duplicates);
          lastDone = (messages[i - 1] as KafkaMessage).offset;
          resolveOffset(lastDone);
          lastBeat = Date.now();
          await heartbeat();
        }
        return i;
      }

      /** The raw fast path: how many leading messages `raw` handled (none if it failed: all go event by event). */
      async function handleRaw(raw: NonNullable<ConsumerOptions['handleRaw']>): Promise<number> {
        const messages = batch.messages;
        if (!messages.length || !isRunning() || isStale()) return 0;
        let n: number;
        let seen = 0;
        // The handler waits for another thread (other partitions' batches may be queued there first): keep the group
        // membership while it does, as a slow flush does.
        const beat = setInterval(() => void heartbeat().catch(() => undefined), heartbeatMs);
        try {
          const res = await raw(messages, { topic, partition, log });
          const told = typeof res === 'number' ? { handled: res, duplicates: 0 } : res;
          n = Math.min(messages.length, Math.max(0, Math.floor(told.handled)));
          seen = Math.min(n, Math.max(0, Math.floor(told.duplicates)));
        } catch (err) {
          log.warn(
            { err: (err as Error).message, topic, partition, offset: (messages[0] as KafkaMessage).offset },
            'raw fast path failed; handling the batch event by event',
          );
          return 0;
        } finally {
          clearInterval(beat);
        }
        if (n > 0) {
          if (n > seen) count(topic, 'handled', n - seen);
          if (seen) count(topic, 'duplicate', seen);
          lastDone = (messages[n - 1] as KafkaMessage).offset;
          resolveOffset(lastDone);
          lastBeat = Date.now();
          await heartbeat();
        }
        return n;
      }

      /** Starts the batch's write and queues its mark and commit behind it; waits only while too many are in flight. */
      async function pipelined(own: { tail: Promise<void>; epoch: number }, ids: string[], last: string | undefined) {
        const from = batch.firstOffset() ?? last;
        const write = (opts.flush as NonNullable<ConsumerOptions['flush']>)({ topic, partition, log });
        write.catch(() => undefined); // observed below, in order
        const settled = own.tail.then(async () => {
          try {
            await write;
          } catch (err) {
            if (own.epoch === epoch) {
              own.epoch++;
              log.warn(
                { err: (err as Error).message, topic, partition, offset: from },
                'batch write failed; refetching',
              );
              if (from !== undefined && isRunning()) consumer.seek({ topic, partition, offset: from });
            }
            return;
          }
          if (own.epoch !== epoch) return; // an earlier batch failed or the group rebalanced: this one comes again
          try {
            if (ids.length) await opts.deduper?.markMany(ids);
            if (last !== undefined)
              await consumer.commitOffsets([{ topic, partition, offset: (BigInt(last) + 1n).toString() }]);
          } catch (err) {
            // Written but not committed (a rebalance, most likely): redelivered and rewritten to the same keys.
            log.warn({ err: (err as Error).message, topic, partition }, 'commit after a pipelined write failed');
          }
        });
        own.tail = settled;
        inFlight.add(settled);
        void settled.finally(() => inFlight.delete(settled));
        if (inFlight.size <= depth) return;
        const beat = setInterval(() => void heartbeat().catch(() => undefined), heartbeatMs);
        try {
          while (inFlight.size > depth && !gaveUp) await Promise.race([...inFlight, givenUp]);
        } finally {
          clearInterval(beat);
        }
      }

      async function handleOne(ev: CloudEvent, msg: KafkaMessage, lazy: () => Logger) {
        // The handler's `log` is built on first use.
        const hctx = {
          topic,
          partition,
          offset: msg.offset,
          get log() {
            return lazy();
          },
        };
        // The first try runs outside retry(): the wrapper costs ~10 µs a call, too much on the per-event hot path.
        let firstError: unknown;
        try {
          await opts.handler(ev, hctx);
          count(topic, 'handled');
          return;
        } catch (err) {
          firstError = err;
        }
        let attempts = 0;
        // A failed heartbeat (the group rebalances) is not the handler's failure: it ends the batch as before.
        let beatError: unknown;
        try {
          await retry(
            async (attempt) => {
              attempts = attempt;
              if (attempt === 1) throw firstError; // replayed, so the policy sees it and waits before attempt 2
              await heartbeat().catch((err) => {
                beatError = err;
                throw err;
              });
              await opts.handler(ev, hctx);
            },
            {
              policy: { ...retryPolicies.handler, minDelayMs: baseMs },
              what: 'event handler',
              // Infrastructure errors retry while the consumer runs; others up to maxAttempts; invalid events never.
              retryable: (err, attempt) =>
                beatError === undefined &&
                isRunning() &&
                (isInfra(err) || (attempt < maxAttempts && !(err instanceof InvalidEventError))),
              onRetry: (err, attempt) => {
                lazy().warn({ err: err.message, attempt, infra: isInfra(err) }, 'handler failed; retrying');
                count(topic, 'retried');
              },
            },
          );
          count(topic, 'handled');
        } catch (err) {
          if (beatError !== undefined) throw beatError;
          // Given up while running: the event is bad (attempts spent, invalid, or a programming error).
          const final = !isInfra(err) && (isRunning() || attempts >= maxAttempts || err instanceof InvalidEventError);
          if (!final) throw err; // shutting down: leave the offset uncommitted; redelivered later
          lazy().error({ err, attempt: attempts }, 'handler failed; event dead-lettered');
          await deadLetter(topic, partition, msg, `${(err as Error).name}: ${(err as Error).message}`, attempts);
        }
      }
    },
  });
  if (depth > 0) {
    // Stopping: later batches wait for their own writes, and the pipelined commits land while still a group member,
    // for up to `drainTimeoutMs`; then the writes still running are given up (their batches are redelivered).
    const drainMs = opts.drainTimeoutMs ?? 10_000;
    const drain = async () => {
      draining = true;
      const timer = setTimeout(() => {
        gaveUp = true;
        for (const lane of lanes.values()) lane.epoch++; // a write landing later commits nothing
        log.warn(
          { writesInFlight: inFlight.size, drainTimeoutMs: drainMs },
          'writes still running at shutdown were given up; their batches are redelivered',
        );
        giveUp();
      }, drainMs);
      await Promise.race([Promise.all([...inFlight]), givenUp]);
      clearTimeout(timer);
    };
    const stop = consumer.stop.bind(consumer);
    const disconnect = consumer.disconnect.bind(consumer);
    consumer.stop = async () => {
      await drain();
      await stop();
    };
    consumer.disconnect = async () => {
      await drain();
      await disconnect();
    };
  }
  return consumer;
}
