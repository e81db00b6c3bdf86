import { bool, type CleanedEnv, cleanEnv, num, port, str, url, type ValidatorSpec } from 'envalid';

export { bool, host, num, port, str, url } from 'envalid';

/**
 * Parses the environment once against a spec (types, defaults, one description per key) and
 * exits non-zero listing every missing or malformed variable. The only place env is read.
 */
export function loadConfig<S extends Record<string, ValidatorSpec<unknown>>>(
  spec: S,
  env: NodeJS.ProcessEnv = process.env,
  onInvalid: (problems: string[]) => never = exitWithProblems,
): Readonly<CleanedEnv<S>> {
  return Object.freeze(
    cleanEnv(env, spec, {
      reporter: ({ errors }) => {
        const problems = Object.entries(errors).map(([key, err]) => {
          const desc = (spec[key] as { desc?: string } | undefined)?.desc;
          const why = env[key] === undefined ? 'missing' : `malformed (${err?.message ?? 'invalid'})`;
          return `${key}: ${why}${desc ? ` - ${desc}` : ''}`;
        });
        if (problems.length) onInvalid(problems);
      },
    }),
  );
}

function exitWithProblems(problems: string[]): never {
  // The logger is not configured yet (it needs config), so write one JSON line by hand.
  process.stderr.write(
    `${JSON.stringify({ level: 'fatal', time: Date.now(), msg: 'invalid configuration', problems })}\n`,
  );
  process.exit(78); // EX_CONFIG
}

/**
 * Kafka connection security (every managed Kafka needs some): TLS, optionally with a client certificate,
 * and SASL. All off by default, which suits the local PLAINTEXT broker.
 */
export function kafkaSecurityConfigSpec() {
  return {
    KAFKA_SSL: bool({ default: false, desc: 'Connect to the brokers over TLS' }),
    KAFKA_SSL_CA_FILE: str({
      default: '',
      desc: "PEM file of the brokers' certificate authority (empty: the system's trusted CAs), e.g. Strimzi's cluster CA ca.crt",
    }),
    KAFKA_SSL_CERT_FILE: str({ default: '', desc: 'PEM client certificate for mutual TLS (with KAFKA_SSL_KEY_FILE)' }),
    KAFKA_SSL_KEY_FILE: str({ default: '', desc: 'PEM private key of the client certificate' }),
    KAFKA_SASL_MECHANISM: str({
      default: '',
      choices: ['', 'plain', 'scram-sha-256', 'scram-sha-512'],
      desc: 'SASL mechanism (empty: no SASL); use with KAFKA_SSL=true outside a laptop',
    }),
    KAFKA_SASL_USERNAME: str({ default: '', desc: 'SASL user name (required with KAFKA_SASL_MECHANISM)' }),
    KAFKA_SASL_PASSWORD: str({
      default: '',
      desc: 'SASL password, from a Secret (required with KAFKA_SASL_MECHANISM)',
    }),
  };
}

/** Variables every service reads, with the service's own defaults. */
export function baseConfigSpec(service: string, defaultPort: number) {
  return {
    PORT: port({ default: defaultPort, desc: `HTTP port of the ${service} service` }),
    HOST: str({
      default: '0.0.0.0',
      desc: 'Address the HTTP server binds: 0.0.0.0 in containers (k8s, compose); the local runner binds 127.0.0.1 so only the gateway is reachable from the network',
    }),
    TRUST_PROXY: str({
      default: '',
      desc: 'Comma-separated addresses/CIDRs (or loopback, linklocal, uniquelocal) of reverse proxies whose X-Forwarded-For is believed; empty: none',
    }),
    LOG_LEVEL: str({
      default: 'info',
      choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      desc: 'pino log level',
    }),
    KAFKA_BROKERS: str({ desc: 'Comma-separated Kafka bootstrap servers, e.g. 127.0.0.1:9092' }),
    KAFKA_TOPIC_PARTITIONS: num({ default: 6, desc: 'Partitions for topics this service creates at start' }),
    ...kafkaSecurityConfigSpec(),
    MONGO_URL: url({ desc: 'MongoDB (or MongoDB-wire) server URL without database, e.g. mongodb://127.0.0.1:27017' }),
    MONGO_DB: str({ default: `cc_${service.replace(/-/g, '_')}`, desc: 'The database this service owns' }),
    BODY_LIMIT: str({ default: '256kb', desc: 'Largest accepted JSON request body' }),
    SHUTDOWN_DEADLINE_MS: num({ default: 25000, desc: 'Exit non-zero if graceful shutdown takes longer' }),
    OUTBOX_SWEEP_MS: num({
      default: 30_000,
      desc: "How often the outbox safety sweep looks for events a crashed writer left unpublished (this process's own are retried on timers)",
    }),
    PROCESSED_EVENTS_RETENTION_HOURS: num({
      default: 168,
      desc: 'How long consumed event ids are remembered for dedupe (redeliveries come within minutes; Kafka keeps 7 days)',
    }),
    EXPIRY_INTERVAL_MS: num({
      default: 3_600_000,
      desc: 'How often expired bookkeeping (processed event ids, request logs, archives) is deleted, in bounded batches',
    }),
  };
}
