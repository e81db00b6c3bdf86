import { v0DeprecationDefaults } from '@cc/contracts';
import { baseConfigSpec, bool, loadConfig, num, str, url } from '@cc/kit';

/** Settings of the identity store, shared by the service and the CLI (which needs no Kafka). */
export const storeConfigSpec = {
  LOG_LEVEL: baseConfigSpec('gateway', 8080).LOG_LEVEL,
  MONGO_URL: baseConfigSpec('gateway', 8080).MONGO_URL,
  MONGO_DB: baseConfigSpec('gateway', 8080).MONGO_DB,
  CC_ENCRYPTION_KEYS: str({
    desc: 'Comma-separated <kid>:<base64 32 bytes>, first active: seals the token signing keys at rest',
  }),
  SIGNING_KEY_ACTIVATION_DELAY_MS: num({
    default: 60_000,
    desc: 'A rotated signing key is published in the JWKS this long before it signs (every replica reloads first)',
  }),
};

/** Every setting of the gateway, with one description per key. */
export const configSpec = {
  ...baseConfigSpec('gateway', 8080),
  ...storeConfigSpec,
  UPSTREAM_ROUTING_URL: url({ default: 'http://127.0.0.1:8081', desc: 'The routing service' }),
  UPSTREAM_PROVIDER_REGISTRY_URL: url({ default: 'http://127.0.0.1:8082', desc: 'The provider-registry service' }),
  UPSTREAM_NOTIFIER_URL: url({ default: 'http://127.0.0.1:8083', desc: 'The notifier service' }),
  UPSTREAM_SUMMARIES_URL: url({ default: 'http://127.0.0.1:8084', desc: 'The summaries service' }),
  UPSTREAM_ANALYSIS_URL: url({ default: 'http://127.0.0.1:8085', desc: 'The analysis service' }),
  UPSTREAM_STATISTICS_URL: url({ default: 'http://127.0.0.1:8086', desc: 'The statistics service' }),
  PROXY_TIMEOUT_MS: num({ default: 30_000, desc: 'An upstream silent this long is answered 504' }),
  GATEWAY_BODY_LIMIT: str({ default: '1mb', desc: 'Largest proxied request body (e.g. 1mb, 512kb); larger is 413' }),
  GATEWAY_MEDIA_BODY_LIMIT: str({
    default: '50mb',
    desc: 'Largest proxied media body (call recording uploads); larger is 413',
  }),
  CONSOLE_DIR: str({
    default: '',
    desc: 'Folder of the built operator console served at /console (default: console/dist found above the gateway)',
  }),
  CORS_ORIGINS: str({ default: '', desc: 'Comma-separated origins allowed by CORS (empty: CORS off)' }),
  AUTH_ISSUER: str({ default: 'cc-suite', desc: '`iss` of the tokens: this gateway, or an external OIDC issuer' }),
  AUTH_AUDIENCE: str({ default: 'cc-suite-api', desc: '`aud` of the tokens' }),
  AUTH_JWKS_URL: str({
    default: '',
    desc: 'JWKS of an external OIDC issuer; when set, the built-in token endpoints are disabled',
  }),
  AUTH_ACCOUNT_CLAIM: str({ default: 'account_id', desc: 'Claim carrying the account id (external issuer)' }),
  RATE_LIMIT_RPS: num({ default: 50, desc: 'Requests per second per client (accounts may override)' }),
  RATE_LIMIT_BURST: num({
    default: 100,
    desc: 'Extra requests a client may make above the rate, refilled over BURST/RPS seconds (accounts may override)',
  }),
  TOKEN_ATTEMPTS_PER_MINUTE: num({ default: 60, desc: 'Token requests per minute per IP address' }),
  TOKEN_FAILURES_PER_CLIENT: num({
    default: 10,
    desc: 'Failed token requests per client id (or account key) per 15 minutes before it is blocked',
  }),
  ACCOUNT_CACHE_MS: num({ default: 30_000, desc: 'How long rate-limit overrides of an account are cached' }),
  SIGNING_KEY_RELOAD_MS: num({ default: 30_000, desc: 'How often the signing keys are re-read from the store' }),
  KAFKA_GROUP_ID: str({
    default: 'gateway',
    desc: 'Prefix of the event stream consumer group; each instance adds its own suffix (every instance reads every event)',
  }),
  EVENT_STREAM_WINDOW: num({
    default: 10_000,
    desc: 'Events (all accounts) kept in memory for Last-Event-ID resume of GET /events/stream',
  }),
  EVENT_STREAM_HEARTBEAT_MS: num({ default: 15_000, desc: 'Heartbeat comment interval of GET /events/stream' }),
  EVENT_STREAM_MAX_BUFFER_BYTES: num({
    default: 1_048_576,
    desc: 'An event stream with more unsent bytes than this is closed (slow consumer)',
  }),
  EVENT_STREAM_MAX_BUFFER_EVENTS: num({
    default: 1000,
    desc: 'An event stream with more events waiting behind a full socket than this is closed (slow consumer)',
  }),
  V0_DEPRECATED_AT: str({
    default: v0DeprecationDefaults.deprecatedAt,
    desc: "When the v0 statistics endpoints were deprecated (RFC 9745 Deprecation header on the gateway's own v0 answers)",
  }),
  V0_SUNSET_AT: str({
    default: v0DeprecationDefaults.sunsetAt,
    desc: "When the v0 statistics endpoints stop answering (RFC 8594 Sunset header on the gateway's own v0 answers)",
  }),
  CC_DEMO_SEED: bool({ default: false, desc: 'Seed the demo account, client and v0 credentials at start' }),
  CC_DEMO_CLIENT_ID: str({ default: 'demo-client', desc: 'Client id of the demo client (every scope)' }),
  CC_DEMO_CLIENT_SECRET: str({ default: 'demo-secret-change-me', desc: 'Secret of the demo client' }),
  CC_DEMO_V0_ACCOUNT_KEY: str({ default: 'demo', desc: 'Account key of the demo v0 credentials' }),
  CC_DEMO_V0_API_TOKEN: str({ default: 'demo-v0-token-change-me', desc: 'API token of the demo v0 credentials' }),
};

/** Parses the gateway's settings from an environment (exits non-zero naming every bad variable). */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configSpec, env);
}

/** The gateway service's settings. */
export type Config = ReturnType<typeof loadServiceConfig>;

/** Parses what the CLI needs: the store, the sealing keys and the demo credentials (no Kafka, no HTTP). */
export function loadCliConfig(env: NodeJS.ProcessEnv = process.env) {
  const { CC_DEMO_CLIENT_ID, CC_DEMO_CLIENT_SECRET, CC_DEMO_V0_ACCOUNT_KEY, CC_DEMO_V0_API_TOKEN } = configSpec;
  return loadConfig(
    { ...storeConfigSpec, CC_DEMO_CLIENT_ID, CC_DEMO_CLIENT_SECRET, CC_DEMO_V0_ACCOUNT_KEY, CC_DEMO_V0_API_TOKEN },
    env,
  );
}
