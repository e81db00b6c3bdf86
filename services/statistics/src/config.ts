import { v0DeprecationDefaults } from '@cc/contracts';
import { authConfigSpec, baseConfigSpec, loadConfig, num, str } from '@cc/kit';

/** Every setting of the statistics service, with its default and description. */
export const configSpec = {
  ...baseConfigSpec('statistics', 8086),
  ...authConfigSpec({ jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' }),
  KAFKA_GROUP_ID: str({
    default: 'cc.statistics',
    desc: 'Kafka consumer group reading agent-activity and interaction events',
  }),
  RETENTION_DAYS: num({
    default: 400,
    desc: 'Days records are kept; older hour buckets are deleted by the retention sweep',
  }),
  RETENTION_SWEEP_MS: num({ default: 3_600_000, desc: 'Milliseconds between retention sweeps' }),
  RETENTION_MAX_HOURS: num({
    default: 48,
    desc: 'Hour buckets per account one sweep deletes at most (bounds each sweep)',
  }),
  V0_DEPRECATED_AT: str({
    default: v0DeprecationDefaults.deprecatedAt,
    desc: 'When the v0 statistics endpoints were deprecated (RFC 9745 Deprecation header)',
  }),
  V0_SUNSET_AT: str({
    default: v0DeprecationDefaults.sunsetAt,
    desc: 'When the v0 statistics endpoints stop answering (RFC 8594 Sunset header)',
  }),
};

/** Parses the environment once (exits non-zero naming every bad variable). */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configSpec, env);
}

/** The statistics service's settings. */
export type Config = ReturnType<typeof loadServiceConfig>;
