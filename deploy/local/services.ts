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
