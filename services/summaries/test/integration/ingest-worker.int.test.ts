import { randomUUID } from 'node:crypto';
import { EventSchemas, newEvent } from '@cc/bus';
import { createLogger } from '@cc/kit';
import { CapturedLogs } from '@cc/testing';
import type { KafkaMessage } from 'kafkajs';
import { IngestWorker } from '../../src/events/ingest';
import { encodeBatch, readBatch, readItems } from '../../src/events/ingest-read';
import { RecentIds } from '../../src/events/recent-ids';
import { AgentEvents } from '../builders/activity.builders';

// The worker thread itself (started from the TypeScript source here, from dist/ingest.worker.js in the image: see
// deploy/test/dist-boot.test.ts): what it reads equals reading in-process, and a worker that dies is replaced.
const topic = 'cc.agent-activity.v1';
const accountId = `acc-${randomUUID()}`;
const logs = new CapturedLogs();
const ingest = new IngestWorker(createLogger('summaries', 'info', logs));

function messages(n: number): KafkaMessage[] {
  const agent = new AgentEvents();
  const out: KafkaMessage[] = [];
  let since = '2026-01-01T08:00:00.000Z';
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.parse('2026-01-01T08:00:00.000Z') + (i + 1) * 60_000).toISOString();
    const e = agent.presence(at, i % 2 ? 'Ready' : 'Away', i ? { presence: i % 2 ? 'Away' : 'Ready', since } : null);
    since = at;
    const event = newEvent({
      source: '/cc/routing',
      type: e.type,
      subject: agent.agentId,
      accountId,
      data: { accountId, ...e.data },
    });
    out.push({ value: Buffer.from(JSON.stringify(event)), offset: String(i) } as KafkaMessage);
  }
  return out;
}

afterAll(() => ingest.stop());

describe('the ingest worker thread', () => {
  it('reads a batch as reading it in-process does', async () => {
    const batch = messages(50);
    const onThread = await ingest.read(topic, batch);
    ingest.settle(onThread, false);
    const here = readBatch(
      new EventSchemas(),
      encodeBatch(
        topic,
        batch.map((m) => m.value),
      ),
      new RecentIds(),
    );
    expect(onThread.handled).toBe(50);
    expect([...readItems(onThread)]).toEqual([...readItems(here)]);
    expect([...readItems(onThread)]).toHaveLength(50);
  });

  it('skips the event ids of a batch settled as applied, and reads again those of one settled as not', async () => {
    const batch = messages(30);
    const a = await ingest.read(topic, batch.slice(0, 20));
    ingest.settle(a, true);
    const b = await ingest.read(topic, batch.slice(10));
    expect([a.handled, b.handled]).toEqual([20, 20]);
    const ids = [...readItems(a), ...readItems(b)].map((i) => ('id' in i ? i.id : ''));
    expect(ids).toHaveLength(30);
    expect(new Set(ids).size).toBe(30);
    ingest.settle(b, false);
    const c = await ingest.read(topic, batch.slice(20));
    expect([...readItems(c)]).toHaveLength(10);
    ingest.settle(c, true);
  });

  it('fails what a dying worker had in hand, and starts a new one for the next batch', async () => {
    const worker = (ingest as unknown as { worker: { terminate(): Promise<number> } }).worker;
    const pending = ingest.read(topic, messages(2000));
    await worker.terminate();
    await expect(pending).rejects.toThrow(/exited/);
    expect(logs.text()).toContain('ingest worker failed; it restarts with the next batch');
    const next = await ingest.read(topic, messages(5));
    expect(next.handled).toBe(5);
  });

  it('takes a worker that does not answer in time as hung: stops it, fails its reads, and starts another', async () => {
    const own = new IngestWorker(createLogger('summaries', 'info', new CapturedLogs()), { readTimeoutMs: 1 });
    try {
      const thread = () => (own as unknown as { worker: { threadId: number } | null }).worker?.threadId;
      await own.start();
      const first = thread();
      // 5,000 events take the worker far longer than 1 ms to read.
      await expect(own.read(topic, messages(5000))).rejects.toThrow('ingest worker did not answer a read within 1 ms');
      expect(thread()).toBeUndefined(); // the hung one was let go
      await own.start();
      expect(thread()).toEqual(expect.any(Number));
      expect(thread()).not.toBe(first);
    } finally {
      await own.stop();
    }
  });

  it('fails a start still under way when stopped, and a read waiting for it', async () => {
    const own = new IngestWorker(createLogger('summaries', 'info', new CapturedLogs()));
    const starting = expect(own.start()).rejects.toThrow('ingest worker stopped');
    const reading = expect(own.read(topic, messages(1))).rejects.toThrow('ingest worker stopped');
    await own.stop();
    await starting;
    await reading;
  });

  it('fails what it had in hand when stopped, and reads nothing after', async () => {
    const own = new IngestWorker(createLogger('summaries', 'info', new CapturedLogs()));
    await own.start();
    const failed = expect(own.read(topic, messages(2000))).rejects.toThrow('ingest worker stopped');
    await own.stop();
    await failed;
    await expect(own.read(topic, messages(1))).rejects.toThrow('ingest worker stopped');
  });
});
