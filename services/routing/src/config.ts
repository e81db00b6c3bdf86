import { authConfigSpec, baseConfigSpec, bool, loadConfig, num, str } from '@cc/kit';

/** The routing service's settings: every variable, its type, default and meaning. */
export const configSpec = {
  ...baseConfigSpec('routing', 8081),
  ...authConfigSpec({ jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' }),
  KAFKA_GROUP_ID: str({ default: 'routing', desc: 'Consumer group reading cc.provider.v1 (the provider read model)' }),
  OFFER_TIMEOUT_MS: num({
    default: 20000,
    desc: 'How long an offer rings before it times out (counted Unexpected, requeued)',
  }),
  REJECT_COOLDOWN_MS: num({
    default: 10000,
    desc: 'After an agent rejects an interaction, how long it is not offered to that agent again',
  }),
  MISSED_OFFERS_AWAY: num({
    default: 3,
    desc: 'Consecutive timed-out offers after which a Ready agent is set Away (0 = never)',
  }),
  REQUEST_ID_RETENTION_HOURS: num({
    default: 48,
    desc: 'How long Invoke requestIds are remembered for dedupe (at least 24)',
  }),
  TRANSFER_PERSONAL_QUEUE_S: num({
    default: 120,
    desc: 'After a transfer to an agent, seconds only that agent may take the interaction (then normal routing)',
  }),
  ENGINE_PASS_GAP_MS: num({
    default: 200,
    desc: 'Least time between two routing passes of one account: wakes arriving meanwhile are served by one pass',
  }),
  ENGINE_SWEEP_MS: num({
    default: 30_000,
    desc: "How often the engine re-reads every account's stored next wake (a safety net: passes are woken by work and by timers)",
  }),
  ENGINE_RELOAD_MS: num({
    default: 300_000,
    desc: "How often the lease owner reads a held account's live interactions and agents whole again (a safety net: passes read only what others changed)",
  }),
  ENGINE_MEMORY_IDLE_MS: num({
    default: 600_000,
    desc: "Accounts no routing pass has used for this long leave the lease owner's memory (read again by their next pass)",
  }),
  LEASE_MS: num({
    default: 10000,
    desc: "Length of an account lease: one instance at a time makes the account's routing decisions",
  }),
  SYNC_GRACE_MS: num({
    default: 3000,
    desc: 'Age after which an agent not in step with an interaction (a crash between the two writes) is reconciled by the engine',
  }),
  RESERVE_GRACE_MS: num({
    default: 10000,
    desc: 'Age after which an agent reservation whose offer never reached the interaction is dropped',
  }),
  ENGINE_PASS_CONCURRENCY: num({
    default: 4,
    desc: 'Routing passes of different accounts one instance runs at once (one account never waits for another)',
  }),
  MAX_QUEUED_PER_PASS: num({ default: 1000, desc: 'Queued interactions one routing pass considers (oldest first)' }),
  CONFIG_CACHE_MS: num({
    default: 1000,
    desc: "How long Invoke keeps an account's routes, plans, skills and providers in memory after reading them (this instance's own changes apply at once; 0 = read every time)",
  }),
  INSTANCE_ID: str({
    default: '',
    desc: 'Name of this instance in account leases (default: host, pid and a random suffix)',
  }),
  ARCHIVE_RETENTION_DAYS: num({
    default: 30,
    desc: 'How long ended interactions and routing decisions stay in the archive (statistics keeps the history)',
  }),
  OUTBOX_EAGER_PUBLISH: bool({
    default: true,
    desc: 'Publish events right after each write (false leaves them to the relay, after its 2 s grace; for crash tests)',
  }),
};

/** Parses the environment once (exits 78 naming every bad variable). */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configSpec, env);
}

/** The routing service's settings. */
export type Config = ReturnType<typeof loadServiceConfig>;
