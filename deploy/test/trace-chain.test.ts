import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { resolve } from 'node:path';
import { initTracing } from '@cc/kit';
import { eventually, freeLoopbackPort, selfSignedCertificate } from '@cc/testing';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { loadServiceConfig as gatewayConfig } from '../../services/gateway/src/config';
import { startService as startGateway } from '../../services/gateway/src/service';
import { loadServiceConfig as notifierConfig } from '../../services/notifier/src/config';
import { startService as startNotifier } from '../../services/notifier/src/service';
import { loadServiceConfig as providerRegistryConfig } from '../../services/provider-registry/src/config';
import { startService as startProviderRegistry } from '../../services/provider-registry/src/service';
import { loadServiceConfig as routingConfig } from '../../services/routing/src/config';
import { startService as startRouting } from '../../services/routing/src/service';
import { startGroupsAtEnd } from './support/kafka-groups';
import { root } from './support/manifests';

// One trace across the suite: a client's Invoke (a release of an assigned interaction) through the gateway to
// routing, its event over Kafka to the notifier, and the notifier's POST to the provider. The four services run
// in this process (real HTTP between them, the real broker and store) so one in-memory exporter sees every span.

const kafkaBrokers = process.env.KAFKA_BROKERS;
const mongoUrl = process.env.MONGO_URL;
if (!kafkaBrokers || !mongoUrl) throw new Error('KAFKA_BROKERS and MONGO_URL must point at the local stack');

const exporter = new InMemorySpanExporter();
initTracing({ serviceName: 'cc-suite-test', exporter }); // before any service: the first call sets the process up

const suffix = `trace${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
// Service logs (warnings and errors) land in .test-results/deploy-trace.log.
mkdirSync(resolve(root, '.test-results'), { recursive: true });
const quiet = createWriteStream(resolve(root, '.test-results/deploy-trace.log'));
const stops: (() => Promise<void>)[] = [];
const posts: { traceparent: string | undefined; body: { notification: string }[] }[] = [];
let endpoint: Server;
let gatewayUrl = '';

/** The parent span id of a span (sdk-trace-base 2.x: parentSpanContext). */
const parentOf = (s: ReadableSpan) =>
  (s as unknown as { parentSpanContext?: { spanId: string } }).parentSpanContext?.spanId;

beforeAll(async () => {
  const cert = selfSignedCertificate();
  endpoint = createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      posts.push({ traceparent: req.headers.traceparent as string | undefined, body: JSON.parse(raw || '[]') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', r));
  const port = { gateway: 0, routing: 0, registry: 0, notifier: 0 };
  for (const k of Object.keys(port) as (keyof typeof port)[]) port[k] = await freeLoopbackPort();
  gatewayUrl = `http://127.0.0.1:${port.gateway}`;
  const keys = `trace:${randomBytes(32).toString('base64')}`;
  const common = (db: string) => ({
    KAFKA_BROKERS: kafkaBrokers,
    MONGO_URL: mongoUrl,
    MONGO_DB: `cc_${db}_${suffix}`,
    LOG_LEVEL: 'warn',
    KAFKA_GROUP_ID: `cc.${db}.${suffix}`,
    AUTH_JWKS_URL: `${gatewayUrl}/.well-known/jwks.json`,
  });
  // Fresh consumer groups start at the end of the shared topics: other tests' history is not this test's work.
  await startGroupsAtEnd(kafkaBrokers, [`cc.routing.${suffix}`, `cc.notifier.${suffix}`]);
  const gw = await startGateway(
    gatewayConfig({
      ...common('gateway'),
      AUTH_JWKS_URL: '',
      PORT: String(port.gateway),
      CC_ENCRYPTION_KEYS: keys,
      CC_DEMO_SEED: 'true',
      CC_DEMO_CLIENT_ID: `demo-${suffix}`,
      CC_DEMO_V0_ACCOUNT_KEY: `demo-${suffix}`,
      SIGNING_KEY_ACTIVATION_DELAY_MS: '0',
      UPSTREAM_ROUTING_URL: `http://127.0.0.1:${port.routing}`,
      UPSTREAM_PROVIDER_REGISTRY_URL: `http://127.0.0.1:${port.registry}`,
      UPSTREAM_NOTIFIER_URL: `http://127.0.0.1:${port.notifier}`,
    }),
    { logDestination: quiet, exitOnShutdown: false },
  );
  stops.push(() => gw.stop());
  const routing = await startRouting(routingConfig({ ...common('routing'), PORT: String(port.routing) }), {
    logDestination: quiet,
    exitOnShutdown: false,
  });
  stops.push(() => routing.stop());
  const registry = await startProviderRegistry(
    providerRegistryConfig({
      ...common('provider_registry'),
      PORT: String(port.registry),
      CC_ENCRYPTION_KEYS: keys,
      ENDPOINT_ALLOWLIST: '127.0.0.1',
    }),
    { logDestination: quiet, exitOnShutdown: false },
  );
  stops.push(() => registry.stop());
  const notifier = await startNotifier(
    notifierConfig({
      ...common('notifier'),
      PORT: String(port.notifier),
      CC_ENCRYPTION_KEYS: keys,
      ENDPOINT_ALLOWLIST: '127.0.0.1',
      NOTIFIER_EXTRA_CA_FILE: cert.certPath,
      DELIVERY_SCHEDULE: '0,500ms,1s,1s,1s,2s,2s,5s',
    }),
    { logDestination: quiet, exitOnShutdown: false },
  );
  stops.push(() => notifier.stop());
}, 180_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await new Promise<void>((r) => (endpoint ? endpoint.close(() => r()) : r()));
}, 60_000);

const tokens = new Map<string, string>(); // one per scope: the token endpoint is rate-limited per address

async function token(scope: string): Promise<string> {
  const cached = tokens.get(scope);
  if (cached) return cached;
  const res = await fetch(`${gatewayUrl}/Auth/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: `demo-${suffix}`,
      client_secret: 'demo-secret-change-me',
      scope,
    }).toString(),
  });
  if (res.status !== 200) throw new Error(`token ${scope}: ${res.status} ${await res.text()}`);
  const issued = ((await res.json()) as { access_token: string }).access_token;
  tokens.set(scope, issued);
  return issued;
}

async function api<T>(
  scope: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await token(scope)}`,
      ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
}

async function ok<T>(scope: string, method: string, path: string, expected: number, json?: unknown): Promise<T> {
  const r = await api<T>(scope, method, path, json);
  if (r.status !== expected) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

it('one Invoke is one trace: gateway -> routing -> Kafka -> notifier -> provider POST', async () => {
  const provider = `Traced-${suffix}`;
  await ok('admin', 'PUT', '/admin/interaction-plans/Trace%20Plan', 201, {
    name: 'Trace Plan',
    applets: [{ type: 'Queue', name: 'Trace queue', virtualQueue: 'Trace' }],
  });
  await ok('admin', 'PUT', '/admin/routes/Trace', 201, { name: 'Trace', interactionPlan: 'Trace Plan' });
  const agent = await ok<{ agentId: string }>('admin', 'POST', '/admin/agents', 201, {
    username: `tracer.${suffix}`,
    displayName: 'Tracer',
    skills: [],
    capacity: { calls: 1, semiLive: 1, nonLive: 1 },
  });
  await ok('interactions:write', 'POST', '/interactions/Register', 201, {
    provider,
    endpoint: `https://127.0.0.1:${(endpoint.address() as { port: number }).port}/hook`,
    agentactionspermitted: { release: 1 },
  });
  const externalId = `case-${suffix}`;
  await eventually(
    async () => {
      const r = await api<{ code?: string }>('interactions:write', 'POST', '/interactions/Invoke', {
        provider,
        requests: [{ requestId: `d-${suffix}`, externalId, route: 'Trace' }],
      });
      if (r.body?.code === 'INVOKE.UNKNOWN_PROVIDER') return undefined;
      if (r.status !== 202) throw new Error(`Invoke: ${r.status} ${JSON.stringify(r.body)}`);
      return r;
    },
    { timeoutMs: 150_000, intervalMs: 500, what: `routing to learn provider ${provider}` },
  );
  await ok('agent', 'PUT', `/agent-desktop/agents/${agent.agentId}/presence`, 200, { presence: 'Ready' });
  const offer = await eventually<{ offerId: string } | undefined>(
    async () =>
      (await ok<{ offerId: string }[]>('agent', 'GET', `/agent-desktop/agents/${agent.agentId}/offers`, 200))[0],
    { timeoutMs: 45_000, intervalMs: 200, what: 'an offer to the agent' },
  );
  if (!offer) throw new Error('no offer');
  await ok('agent', 'POST', `/agent-desktop/agents/${agent.agentId}/offers/${offer.offerId}/accept`, 200);

  exporter.reset(); // only the release's trace from here
  await ok('interactions:write', 'POST', '/interactions/Invoke', 202, {
    provider,
    requests: [{ action: 'release', requestId: `r-${suffix}`, externalId }],
  });
  const post = await eventually(() => posts.find((p) => p.body.some((n) => n.notification === 'Release')), {
    timeoutMs: 45_000,
    what: 'the Release notification at the provider',
  });
  if (!post) throw new Error('no Release POST');
  const postSpanId = post.traceparent?.split('-')[2];
  const spans = await eventually<ReadableSpan[] | undefined>(
    () => {
      const all = exporter.getFinishedSpans();
      return all.some((s) => s.spanContext().spanId === postSpanId) ? all : undefined;
    },
    { what: 'the span of the provider POST' },
  );
  if (!spans) throw new Error('no spans');
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const chain: ReadableSpan[] = [];
  for (let s = byId.get(postSpanId ?? ''); s; s = byId.get(parentOf(s) ?? '')) chain.unshift(s);
  const describe = chain.map((s) => `${s.attributes['cc.service']} ${s.kind} ${s.name}`);
  // SpanKind: SERVER 1, CLIENT 2, PRODUCER 3, CONSUMER 4.
  expect(describe).toEqual([
    'gateway 1 POST /interactions/Invoke',
    'routing 1 POST /interactions/Invoke',
    'routing 3 cc.interaction.v1 publish',
    'notifier 4 cc.interaction.v1 process',
    'notifier 2 POST provider endpoint',
  ]);
  expect(new Set(chain.map((s) => s.spanContext().traceId)).size).toBe(1);
  expect(post.traceparent).toBe(`00-${chain[0]?.spanContext().traceId}-${postSpanId}-01`);
}, 360_000);
