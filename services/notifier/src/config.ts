import { hostname } from 'node:os';
import { authConfigSpec, baseConfigSpec, loadConfig, num, str } from '@cc/kit';
import { EndpointAllowlist } from './domain/address-policy';
import { parseDuration, parseSchedule, type RetrySchedule } from './domain/schedule';

/** Every variable the notifier reads, with its default and description. */
export const configSpec = {
  ...baseConfigSpec('notifier', 8083),
  ...authConfigSpec({ jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' }),
  CC_ENCRYPTION_KEYS: str({
    desc: "Keys that open providers' sealed headers and signing secrets: `<kid>:<base64 32 bytes>`, comma-separated (same list as the provider registry)",
  }),
  KAFKA_GROUP_ID: str({
    default: 'cc.notifier',
    desc: 'Kafka consumer group (its dead-letter topic is `<group>.dlq`)',
  }),
  DELIVERY_SCHEDULE: str({
    default: '0,5s,5m,30m,2h,5h,10h,10h',
    desc: 'Delay before each attempt (comma-separated durations: ms, s, m, h, d); dead after the last',
  }),
  DELIVERY_JITTER: num({ default: 0.2, desc: 'Fraction of each retry delay randomised either way (0 to 1)' }),
  ATTEMPT_TIMEOUT_MS: num({ default: 15000, desc: 'Deadline of one POST to a provider endpoint' }),
  LEASE_MS: num({
    default: 0,
    desc: "How long an instance's hold on its open deliveries lasts unless renewed; after that another instance takes them over (0: 3 × SWEEP_INTERVAL_MS)",
  }),
  SWEEP_INTERVAL_MS: num({
    default: 30000,
    desc: 'The safety sweep: takes over deliveries of stopped instances and expires old bookkeeping (nothing else polls)',
  }),
  DELIVERY_RETENTION: str({ default: '30d', desc: 'How long finished deliveries (and interaction facts) are kept' }),
  INSTANCE_ID: str({
    default: '',
    desc: 'Name of this instance on the deliveries it holds; a restart under the same name takes them back at once (default: host name and port)',
  }),
  MAX_RETRY_AFTER_MS: num({ default: 6 * 3_600_000, desc: 'Longest Retry-After (429/503) honoured' }),
  ENDPOINT_CONCURRENCY: num({ default: 32, desc: 'POSTs in flight per provider endpoint' }),
  MAX_IN_FLIGHT: num({ default: 256, desc: 'POSTs in flight in this instance' }),
  BREAKER_FAILURE_THRESHOLD: num({
    default: 5,
    desc: "Attempts in the breaker's window before it may open (opossum volumeThreshold)",
  }),
  BREAKER_ERROR_PERCENTAGE: num({
    default: 50,
    desc: "Failed share (%) of the window's attempts above which the breaker opens",
  }),
  BREAKER_WINDOW_MS: num({
    default: 60000,
    desc: "The breaker's rolling window (longer than ATTEMPT_TIMEOUT_MS, so a timeout counts in the window of its request)",
  }),
  BREAKER_RESET_MS: num({ default: 30000, desc: 'How long a breaker stays open before one trial request (half-open)' }),
  SLOW_DELIVERY_MS: num({
    default: 1000,
    desc: 'A notification whose outcome comes later than this after its event is logged with its timeline (warn; 0: never)',
  }),
  ENDPOINT_ALLOWLIST: str({
    default: '',
    desc: 'Development only: host names, IPs and CIDRs that endpoints may use although not public (e.g. 127.0.0.1,localhost)',
  }),
  NOTIFIER_EXTRA_CA_FILE: str({
    default: '',
    desc: 'PEM file of extra certificate authorities trusted for provider endpoints (private PKI, tests)',
  }),
};

/** Settings parsed from the environment plus the derived, validated values. */
export type Config = ReturnType<typeof loadConfig<typeof configSpec>> & {
  /** The parsed `DELIVERY_SCHEDULE`. */
  schedule: RetrySchedule;
  /** The effective lease (LEASE_MS or its default). */
  leaseMs: number;
  /** The parsed `DELIVERY_RETENTION`. */
  retentionMs: number;
  /** The effective instance name. */
  instanceId: string;
};

/**
 * Parses the notifier's settings once (exits 78 naming every bad variable). `env` lets tests start the
 * service in-process with their own settings.
 */
export function loadServiceConfig(
  env: NodeJS.ProcessEnv = process.env,
  onInvalid?: (problems: string[]) => never,
): Readonly<Config> {
  const base = loadConfig(configSpec, env, onInvalid);
  const problems: string[] = [];
  let schedule: RetrySchedule = { delays: [0], jitter: 0 };
  try {
    if (base.DELIVERY_JITTER < 0 || base.DELIVERY_JITTER > 1) throw new Error('must be between 0 and 1');
    schedule = parseSchedule(base.DELIVERY_SCHEDULE, base.DELIVERY_JITTER);
  } catch (err) {
    problems.push(`DELIVERY_SCHEDULE / DELIVERY_JITTER: malformed (${(err as Error).message})`);
  }
  try {
    EndpointAllowlist.parse(base.ENDPOINT_ALLOWLIST);
  } catch (err) {
    problems.push(`ENDPOINT_ALLOWLIST: malformed (${(err as Error).message})`);
  }
  const leaseMs = base.LEASE_MS > 0 ? base.LEASE_MS : 3 * base.SWEEP_INTERVAL_MS;
  if (leaseMs <= base.ATTEMPT_TIMEOUT_MS) problems.push('LEASE_MS: must be longer than ATTEMPT_TIMEOUT_MS');
  if (base.SWEEP_INTERVAL_MS < 1000) problems.push('SWEEP_INTERVAL_MS: must be at least 1000');
  if (base.BREAKER_WINDOW_MS <= base.ATTEMPT_TIMEOUT_MS) {
    problems.push('BREAKER_WINDOW_MS: must be longer than ATTEMPT_TIMEOUT_MS');
  }
  if (base.BREAKER_ERROR_PERCENTAGE < 0 || base.BREAKER_ERROR_PERCENTAGE >= 100) {
    problems.push('BREAKER_ERROR_PERCENTAGE: must be from 0 to below 100');
  }
  let retentionMs = 0;
  try {
    retentionMs = parseDuration(base.DELIVERY_RETENTION);
    if (retentionMs < 60_000) throw new Error('at least 1m');
  } catch (err) {
    problems.push(`DELIVERY_RETENTION: malformed (${(err as Error).message})`);
  }
  for (const key of ['ENDPOINT_CONCURRENCY', 'MAX_IN_FLIGHT', 'BREAKER_FAILURE_THRESHOLD'] as const) {
    if (!Number.isInteger(base[key]) || base[key] < 1) problems.push(`${key}: must be a positive integer`);
  }
  if (problems.length) {
    if (onInvalid) onInvalid(problems);
    process.stderr.write(
      `${JSON.stringify({ level: 'fatal', time: Date.now(), msg: 'invalid configuration', problems })}\n`,
    );
    process.exit(78);
  }
  const instanceId = base.INSTANCE_ID || `${hostname()}:${base.PORT}`;
  return Object.freeze({ ...base, schedule, leaseMs, retentionMs, instanceId });
}
