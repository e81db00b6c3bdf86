import { randomUUID } from 'node:crypto';
import { newEvent } from '@cc/bus';
import { eventDataExamples } from '@cc/contracts';
import { eventually, freshName, testInfra } from '@cc/testing';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { type AnalysisUnderTest, type Reply, startAnalysis } from '../support/analysis';

const account = `acct-${randomUUID().slice(0, 8)}`;
let t: AnalysisUnderTest;
let consumer: Consumer;
const analysisEvents: { type: string; subject: string; data: Record<string, unknown> }[] = [];

beforeAll(async () => {
  t = await startAnalysis();
  const admin = await t.as(account, 'admin');
  await admin.putJson('/admin/analysis/categories', {
    categories: [{ category: 'Billing', subcategories: [{ name: 'Refund', phrases: ['refund'] }] }],
  });
  const infra = await testInfra();
  consumer = new Kafka({ clientId: 'analysis-test', brokers: infra.kafkaBrokers, logLevel: logLevel.NOTHING }).consumer(
    {
      groupId: freshName('analysis-events-test'),
    },
  );
  await consumer.connect();
  await consumer.subscribe({ topic: 'cc.analysis.v1', fromBeginning: false });
  await consumer.run({
    eachMessage: async ({ message }) => {
      const e = JSON.parse(message.value?.toString('utf8') ?? '{}');
      if (e.accountid === account) analysisEvents.push(e);
    },
  });
}, 120_000);

afterAll(async () => {
  await consumer?.disconnect();
  await t?.stop();
});

describe('interaction.recorded → analysis → read', () => {
  it('analyses a call announced as segments and announces started and completed on cc.analysis.v1', async () => {
    const guid = randomUUID();
    const recordingId = randomUUID();
    const data = {
      ...eventDataExamples['interaction.recorded'],
      interactionId: guid,
      recordingId,
      durationMs: 20_000,
      language: 'en-GB',
      segments: [
        { speaker: 'agent' as const, startMs: 1000, endMs: 5000, text: 'Hello, how can I help?' },
        { speaker: 'customer' as const, startMs: 4000, endMs: 9000, text: 'I would like a REFUND.' },
        { speaker: 'agent' as const, startMs: 12_000, endMs: 15_000 },
      ],
    };
    // Published as a telephony platform would, on the topic routing owns.
    await t.service.producer.publish('cc.interaction.v1', [
      newEvent({
        source: '/cc/telephony-platform',
        type: 'interaction.recorded',
        subject: guid,
        accountId: account,
        data,
      }),
    ]);
    const reader = await t.as(account, 'interaction-content:read');
    const done = (await eventually(
      async () => {
        const r = await reader.get(`/conversation-analyzer/interactions/${guid}?transcript=true`);
        return r.body?.status === 'processed' ? r : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 250, what: 'analysis from the event' },
    )) as Reply;
    expect(done.body).toEqual({
      guid,
      status: 'processed',
      confidence: null,
      language: 'en-GB',
      callTimeBreakDown: { agent: 6, customer: 4, crossTalk: 1, silence: 9 },
      transcript: '[00:01.0 Agent] Hello, how can I help?\n[00:04.0 Customer] I would like a REFUND.',
      categories: [{ category: 'Billing', categories: [{ name: 'Refund', matches: 'refund' }] }],
    });
    const mine = await eventually(
      () => {
        const e = analysisEvents.filter((x) => x.subject === guid).map((x) => x.type);
        return e.includes('analysis.completed') ? e : undefined;
      },
      { timeoutMs: 30_000, what: 'analysis events' },
    );
    expect(mine).toEqual(['analysis.started', 'analysis.completed']);
    const completed = analysisEvents.find((x) => x.subject === guid && x.type === 'analysis.completed');
    expect(completed?.data).toMatchObject({ guid, result: { status: 'processed', language: 'en-GB' } });
  }, 120_000);

  it('ignores other interaction events', async () => {
    const guid = randomUUID();
    await t.service.producer.publish('cc.interaction.v1', [
      newEvent({
        source: '/cc/telephony-platform',
        type: 'interaction.queued',
        subject: guid,
        accountId: account,
        data: { ...eventDataExamples['interaction.queued'], interactionId: guid },
      }),
    ]);
    const reader = await t.as(account, 'interaction-content:read');
    // A recorded event after it is analysed; the queued one left nothing behind.
    const marker = randomUUID();
    await t.service.producer.publish('cc.interaction.v1', [
      newEvent({
        source: '/cc/telephony-platform',
        type: 'interaction.recorded',
        subject: guid, // the same key: same partition, so it is handled after the queued event
        accountId: account,
        data: { ...eventDataExamples['interaction.recorded'], interactionId: marker, segments: [] },
      }),
    ]);
    await eventually(async () => (await reader.get(`/conversation-analyzer/interactions/${marker}`)).status === 200, {
      timeoutMs: 60_000,
      what: 'the marker call',
    });
    expect((await reader.get(`/conversation-analyzer/interactions/${guid}`)).status).toBe(404);
  }, 120_000);
});
