import type { Consumer, Kafka } from 'kafkajs';
import { createLogger } from '../../kit/src/logger';
import { initTracing, traceLogFields } from '../../kit/src/tracing';
import { eventually, freshName, testInfra } from '../../testing/src';
import {
  type CloudEvent,
  createKafka,
  EventProducer,
  EventSchemas,
  ensureTopics,
  newEvent,
  startConsumer,
} from '../src';

/** The finished spans, as the SDK hands them to an exporter (only the fields read here). */
type Finished = { name: string; attributes: Record<string, unknown>; spanContext(): { traceId: string } };
const finished: Finished[] = [];
initTracing({
  serviceName: 'bus-spans-test',
  exporter: {
    export: (spans: Finished[], done: (r: { code: number }) => void) => {
      finished.push(...spans);
      done({ code: 0 });
    },
    shutdown: async () => undefined,
  } as never,
});

const logger = createLogger('bus-spans-test', 'silent');
const schemas = new EventSchemas({ 'order.placed': { type: 'object', properties: { qty: { type: 'integer' } } } });
const traceId = '0af7651916cd43dd8448eb211c80319c';
const placed = (n: number) => ({
  ...newEvent({ source: '/cc/test', type: 'order.placed', subject: `o${n}`, accountId: 'acc1', data: { qty: n } }),
  traceparent: `00-${traceId}-${String(n).padStart(16, 'b')}-01`,
});

let kafka: Kafka;
let producer: EventProducer;
const consumers: Consumer[] = [];

beforeAll(async () => {
  const infra = await testInfra();
  kafka = createKafka({ brokers: infra.kafkaBrokers, clientId: 'bus-spans-test', logger });
  producer = new EventProducer(kafka, schemas, logger);
  await producer.connect();
});
afterAll(async () => {
  await Promise.all(consumers.map((c) => c.disconnect()));
  await producer.disconnect();
});

async function run(spans: 'event' | 'batch') {
  const topic = freshName('spans');
  const group = freshName('g');
  await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
  const events = [placed(1), placed(2), placed(3)];
  await producer.publish(topic, events);
  const seen: { event: CloudEvent; active: Record<string, string> }[] = [];
  const c = await startConsumer({
    kafka,
    groupId: group,
    topics: [topic],
    schemas,
    producer,
    logger,
    spans,
    handler: async (event) => void seen.push({ event, active: traceLogFields() }),
  });
  consumers.push(c);
  await eventually(() => seen.length === 3, { what: 'events handled' });
  return { topic, events, seen, spans: finished.filter((s) => s.name === `${topic} process`) };
}

describe('consumer spans', () => {
  it('by default, one span per event continuing its trace, handed to the handler as the traceparent', async () => {
    const { events, seen, spans } = await run('event');
    expect(spans).toHaveLength(3);
    for (const [i, { event, active }] of seen.entries()) {
      expect(event.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
      expect(event.traceparent).not.toBe(events[i]?.traceparent);
      expect(active.trace_id).toBe(traceId);
    }
  });

  it("with spans: 'batch', one span per fetched batch; the handler runs in it and sees each event's own traceparent", async () => {
    const { events, seen, spans } = await run('batch');
    expect(spans.length).toBeGreaterThanOrEqual(1);
    expect(spans.reduce((n, s) => n + Number(s.attributes['messaging.batch.message_count']), 0)).toBe(3);
    const batchTraces = new Set(spans.map((s) => s.spanContext().traceId));
    for (const [i, { event, active }] of seen.entries()) {
      expect(event.traceparent).toBe(events[i]?.traceparent);
      expect(batchTraces.has(active.trace_id as string)).toBe(true);
    }
  });
});
