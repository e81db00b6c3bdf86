import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Runtime } from '@cc/runtime';
import { CapturedLogs, freshName, type GatewayProcess, planGateway, testInfra, topicOffsets } from '@cc/testing';
import { Kafka, logLevel } from 'kafkajs';
import type { mongo } from 'mongoose';
import { loadServiceConfig } from '../../src/config';
import { type AnalysisService, startService } from '../../src/service';

/** One fixture call as calls.json describes it. */
export interface FixtureCall {
  name: string;
  file: string;
  duration: number;
  timeline: { speaker: 'agent' | 'customer'; start: number; end: number; text: string }[];
  expectedBreakDown: Record<'agent' | 'customer' | 'silence' | 'crossTalk', number>;
  keyPhrases: string[];
}

const fixtures = join(__dirname, '..', 'fixtures');

/** The committed fixture calls (see test/fixtures/make-fixtures.ts). */
export const fixtureCalls = JSON.parse(readFileSync(join(fixtures, 'calls.json'), 'utf8')) as FixtureCall[];

/** A fixture's WAV bytes. */
export const fixtureAudio = (c: FixtureCall) => readFileSync(join(fixtures, c.file));

/** A JSON (or text) response as the tests read it. */
export interface Reply {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field
  body: any;
}

/** A client with one bearer token against a base URL (the gateway). */
export function client(baseUrl: string, token: string) {
  const send = async (method: string, path: string, body?: BodyInit | Buffer, headers: Record<string, string> = {}) => {
    const payload = Buffer.isBuffer(body) ? new Uint8Array(body) : body;
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...headers },
      ...(payload !== undefined ? { body: payload } : {}),
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, headers: res.headers, body: parsed } as Reply;
  };
  return {
    get: (path: string, headers?: Record<string, string>) => send('GET', path, undefined, headers),
    put: (path: string, body: BodyInit | Buffer, headers?: Record<string, string>) => send('PUT', path, body, headers),
    putJson: (path: string, body: unknown) =>
      send('PUT', path, JSON.stringify(body), { 'content-type': 'application/json' }),
  };
}

/** Moves a fresh consumer group to the end of the topics, so the service sees only this test's events. */
async function skipToEnd(brokers: string[], groupId: string, topics: string[]): Promise<void> {
  const admin = new Kafka({ clientId: 'analysis-test', brokers, logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: topics.map((topic) => ({ topic })), waitForLeaders: true }).catch(() => false);
    for (const topic of topics) {
      const offsets = await topicOffsets(admin, topic);
      await admin.setOffsets({
        groupId,
        topic,
        partitions: offsets.map((o) => ({ partition: o.partition, offset: o.high })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}

/** The analysis service in-process on the real broker and store, behind a real gateway process. */
export interface AnalysisUnderTest {
  service: AnalysisService;
  baseUrl: string;
  gateway: GatewayProcess;
  logs: CapturedLogs;
  dbName: string;
  finished: { guid: string; state: string; processingMs: number; audioSeconds: number }[];
  as(accountId: string, scope: string): Promise<ReturnType<typeof client>>;
  rawAnalyses(): mongo.Collection;
  stop(): Promise<void>;
}

/** Starts the service with a fresh database and consumer group; `env` adds or overrides settings. */
export async function startAnalysis(env: Record<string, string> = {}): Promise<AnalysisUnderTest> {
  const infra = await testInfra();
  const planned = await planGateway();
  const logs = new CapturedLogs();
  const dbName = freshName('cc_analysis');
  const finished: AnalysisUnderTest['finished'] = [];
  const groupId = freshName('analysis-test');
  await skipToEnd(infra.kafkaBrokers, groupId, ['cc.interaction.v1']);
  const config = {
    ...loadServiceConfig({
      ...process.env,
      KAFKA_BROKERS: infra.kafkaBrokers.join(','),
      MONGO_URL: infra.mongoUrl,
      MONGO_DB: dbName,
      LOG_LEVEL: 'info',
      SHUTDOWN_DEADLINE_MS: '20000',
      AUTH_JWKS_URL: planned.jwksUrl,
      KAFKA_GROUP_ID: groupId,
      ...env,
    }),
    PORT: 0,
  };
  const service = await startService(config, {
    logDestination: logs,
    exitOnShutdown: false,
    onFinished: (r) => finished.push(r),
  });
  const gateway = await planned.start({ ANALYSIS: service.url() }).catch(async (err) => {
    await service.stop();
    throw err;
  });
  return {
    service,
    baseUrl: gateway.url,
    gateway,
    logs,
    dbName,
    finished,
    as: async (accountId, scope) => client(gateway.url, await gateway.token(accountId, scope)),
    rawAnalyses: () => service.conn.getClient().db(dbName).collection('analyses'),
    stop: async () => {
      await service.conn
        .getClient()
        .db(dbName)
        .dropDatabase()
        .catch(() => undefined);
      await gateway.stop();
      await (service as Runtime).stop();
    },
  };
}
