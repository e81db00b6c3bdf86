import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The service's Prometheus registry with default process metrics and the suite's shared instruments. */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    consumerLag: new Gauge({
      name: 'kafka_consumer_lag',
      help: 'Messages behind the partition high watermark at the last fetched batch',
      labelNames: ['group', 'topic', 'partition'] as const,
      registers: [registry],
    }),
    consumedEvents: new Counter({
      name: 'kafka_consumed_events_total',
      help: 'Events consumed by outcome (handled, duplicate, dead_lettered, retried)',
      labelNames: ['group', 'topic', 'outcome'] as const,
      registers: [registry],
    }),
    producedEvents: new Counter({
      name: 'kafka_produced_events_total',
      help: 'Events published by topic',
      labelNames: ['topic'] as const,
      registers: [registry],
    }),
    storePool: new Gauge({
      name: 'mongodb_pool_connections',
      help: 'MongoDB driver pool connections by state',
      labelNames: ['state'] as const,
      registers: [registry],
    }),
    outboxPending: new Gauge({
      name: 'outbox_pending_events',
      help: 'Events found pending by the last outbox relay pass',
      labelNames: ['collection'] as const,
      registers: [registry],
    }),
  };
}

/** The suite's shared metric instruments. */
export type Metrics = ReturnType<typeof createMetrics>;
