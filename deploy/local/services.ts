/** The suite's services and their local ports (the gateway is the public entrance). */
export const services = [
  { name: 'gateway', port: 8080 },
  { name: 'routing', port: 8081 },
  { name: 'provider-registry', port: 8082 },
  { name: 'notifier', port: 8083 },
  { name: 'summaries', port: 8084 },
  { name: 'analysis', port: 8085 },
  { name: 'statistics', port: 8086 },
] as const;

/**
 * The address a service binds when run locally: only the gateway listens on every interface (it is the entrance and
 * carries the rate limits and path guard); the services behind it listen on loopback, so they cannot be reached
 * around the gateway from the network. `CC_BIND_HOST` overrides it for every service (e.g. 0.0.0.0).
 */
export function localBindHost(name: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.CC_BIND_HOST || (name === 'gateway' ? '0.0.0.0' : '127.0.0.1');
}

type ServiceName = (typeof services)[number]['name'];
const envName = (name: string) => name.toUpperCase().replace(/-/g, '_');

/**
 * A service's local port: `PORT_<SERVICE>` if set, else `CC_PORT_BASE` + its place in the list (a second suite beside
 * the first, e.g. CC_PORT_BASE=8180), else its default (8080-8086).
 */
export function portOf(name: ServiceName, env: NodeJS.ProcessEnv = process.env): number {
  const own = env[`PORT_${envName(name)}`];
  if (own) return Number(own);
  const base = env.CC_PORT_BASE;
  const index = services.findIndex((s) => s.name === name);
  return base ? Number(base) + index : (services[index]?.port ?? 0);
}

/**
 * What a service needs to find its peers on the ports `portOf` gives, and, with `CC_INSTANCE=<name>`, its own
 * databases and consumer groups, so two local suites can share one Kafka and one store without taking each other's
 * partitions or documents.
 */
export function instanceEnv(name: ServiceName, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  if (env.CC_PORT_BASE || services.some((s) => env[`PORT_${envName(s.name)}`])) {
    if (name !== 'gateway') out.AUTH_JWKS_URL = `http://127.0.0.1:${portOf('gateway', env)}/.well-known/jwks.json`;
    else
      for (const s of services.slice(1))
        out[`UPSTREAM_${envName(s.name)}_URL`] = `http://127.0.0.1:${portOf(s.name, env)}`;
  }
  const instance = env.CC_INSTANCE;
  if (instance) {
    out.MONGO_DB = `cc_${instance}_${name.replace(/-/g, '_')}`;
    out.KAFKA_GROUP_ID = `cc-${instance}.${name}`;
  }
  return out;
}
