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
