import { performance } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * prom-client's event-loop delay histogram (these gauges) samples the loop with a timer every
 * `eventLoopMonitoringPrecision` ms (default 10): ~190 wake-ups a second, ~0.36 % of a core per process at rest on
 * the 2-core reference machine, and the largest share of an idle service's CPU. It is not sampled (see
 * {@link createMetrics}); these gauges, which would stay empty, are not exported.
 */
const sampledEventLoopGauges = [
  'nodejs_eventloop_lag_min_seconds',
  'nodejs_eventloop_lag_max_seconds',
  'nodejs_eventloop_lag_mean_seconds',
  'nodejs_eventloop_lag_stddev_seconds',
  'nodejs_eventloop_lag_p50_seconds',
  'nodejs_eventloop_lag_p90_seconds',
  'nodejs_eventloop_lag_p99_seconds',
];
/** The sampler's period when it must not run: the longest a Node timer can be (~24.8 days). */
const neverMs = 2 ** 31 - 1;

/**
 * The service's Prometheus registry with default process metrics and the suite's shared instruments.
 *
 * Of the event loop it exports what costs nothing while the process is idle: `nodejs_eventloop_lag_seconds` (the
 * delay of a callback queued at scrape time, prom-client's) and `nodejs_eventloop_busy_seconds_total` (libuv's own
 * account of the time the loop spent outside waiting for I/O: its rate is the loop's utilization, 1 when saturated).
 */
export function createMetrics(service: string) {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: neverMs });
  for (const name of sampledEventLoopGauges) registry.removeSingleMetric(name);
  let busySeconds = 0;
  new Counter({
    name: 'nodejs_eventloop_busy_seconds_total',
    help: 'Time the event loop spent running callbacks rather than waiting for I/O (rate = utilization)',
    registers: [registry],
    collect() {
      const now = performance.eventLoopUtilization().active / 1000;
      this.inc(Math.max(0, now - busySeconds));
      busySeconds = Math.max(busySeconds, now);
    },
  });
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
    outboxSetAside: new Counter({
      name: 'outbox_set_aside_events_total',
      help: 'Outbox entries that can never be published (refused by the broker for good, unreadable), set aside in outbox_dead_letters',
      labelNames: ['collection', 'topic'] as const,
      registers: [registry],
    }),
  };
}

/** The suite's shared metric instruments. */
export type Metrics = ReturnType<typeof createMetrics>;
