import { authConfigSpec, baseConfigSpec, loadConfig, num, str } from '@cc/kit';

/** Every setting of the summaries service, with its default and description. */
export const configSpec = {
  ...baseConfigSpec('summaries', 8084),
  ...authConfigSpec({ jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' }),
  KAFKA_GROUP_ID: str({
    default: 'cc.summaries',
    desc: 'Consumer group reading cc.agent-activity.v1 and cc.account.v1 (dead letters go to <group>.dlq)',
  }),
  AGENT_ACTIVITY_TOPIC: str({
    default: 'cc.agent-activity.v1',
    desc: 'Topic of the agent-activity events (tests use their own)',
  }),
  ACCOUNT_TOPIC: str({
    default: 'cc.account.v1',
    desc: 'Topic of the account feature-flag events (tests use their own)',
  }),
  WATERMARK_GRACE_MS: num({
    default: 2000,
    desc: 'How long before reaching Kafka an event may have occurred; upTo stays this far behind the consumer',
  }),
  RETENTION_DAYS: num({ default: 35, desc: 'Days of buckets kept (in memory and in the store); older ones expire' }),
};

/** Parses the environment once (exits non-zero naming every bad variable). */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configSpec, env);
}

/** The summaries service's settings. */
export type Config = ReturnType<typeof loadServiceConfig>;
