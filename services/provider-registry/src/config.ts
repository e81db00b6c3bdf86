import { authConfigSpec, baseConfigSpec, loadConfig, num, str } from '@cc/kit';

/** Every setting of the provider registry, with its default and description. */
export const configSpec = {
  ...baseConfigSpec('provider-registry', 8082),
  ...authConfigSpec({ jwksUrl: 'http://127.0.0.1:8080/.well-known/jwks.json' }),
  CC_ENCRYPTION_KEYS: str({
    desc: 'Comma-separated <kid>:<base64 of 32 bytes> AES-256-GCM keys, the first one active; seal header values and signing secrets at rest and in events (shared with the notifier only)',
  }),
  ENDPOINT_ALLOWLIST: str({
    default: '',
    desc: 'Development only: comma-separated hosts, IP addresses or CIDR ranges an endpoint may use despite the public-address rule, e.g. 127.0.0.1,localhost',
  }),
  DNS_TIMEOUT_MS: num({
    default: 2000,
    desc: 'Longest wait for the DNS lookup of an endpoint host at registration (a second lookup starts at half of it)',
  }),
  SIGNING_SECRET_GRACE_S: num({
    default: 86400,
    desc: 'Seconds a rotated-out signing secret keeps signing notifications (both signatures are sent meanwhile)',
  }),
};

/** Parses the environment once (exits non-zero naming every bad variable). */
export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env) {
  return loadConfig(configSpec, env);
}

/** The provider-registry service's settings. */
export type Config = ReturnType<typeof loadServiceConfig>;
