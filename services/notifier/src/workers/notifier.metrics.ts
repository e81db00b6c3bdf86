import type { Metrics } from '@cc/kit';

type Labels = Record<string, string>;
interface Sample {
  value: number;
  labels: Labels;
  metricName?: string;
}
/** The shape prom-client's registry reads from a metric (`get()`), so collectors need no prom-client import. */
interface Collector {
  name: string;
  help: string;
  type: 'gauge' | 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
}

const keyOf = (labels: Labels) => JSON.stringify(Object.entries(labels).sort());

function register(metrics: Metrics, c: Omit<Collector, 'get' | 'aggregator'>, values: () => Sample[]): void {
  const collector: Collector = {
    ...c,
    aggregator: 'sum',
    get: async () => ({ name: c.name, help: c.help, type: c.type, values: values(), aggregator: 'sum' }),
  };
  metrics.registry.registerMetric(collector as never);
}

/** A labelled counter. */
export interface CounterLike {
  inc(labels: Labels, by?: number): void;
}

/** A labelled histogram. */
export interface HistogramLike {
  observe(labels: Labels, value: number): void;
}

/** The notifier's own instruments, registered on the service's Prometheus registry. */
export interface NotifierMetrics {
  /** Attempts by outcome: delivered, failed, dead, rejected (breaker open), blocked (SSRF rule). */
  attempts: CounterLike;
  /** Attempt duration in seconds by outcome. */
  attemptSeconds: HistogramLike;
  /** Seconds from the interaction event to the 2xx of its notification. */
  endToEndSeconds: HistogramLike;
  /** opossum's breaker events per endpoint host: success, failure, reject, open, halfOpen, close. */
  breakerEvents: CounterLike;
}

/**
 * Registers the notifier's metrics: counters and histograms it updates, plus gauges read at scrape
 * time from `gauges` (breaker state per endpoint host, in-flight POSTs).
 */
export function createNotifierMetrics(
  metrics: Metrics,
  gauges: {
    breakers: () => { labels: Labels; state: number; failures: number }[];
    inFlight: () => number;
  },
): NotifierMetrics {
  const counter = (name: string, help: string): CounterLike => {
    const values = new Map<string, Sample>();
    register(metrics, { name, help, type: 'counter' }, () => [...values.values()]);
    return {
      inc(labels, by = 1) {
        const k = keyOf(labels);
        const s = values.get(k) ?? { value: 0, labels };
        s.value += by;
        values.set(k, s);
      },
    };
  };
  const histogram = (name: string, help: string, buckets: number[]): HistogramLike => {
    const series = new Map<string, { labels: Labels; counts: number[]; sum: number; count: number }>();
    register(metrics, { name, help, type: 'histogram' }, () =>
      [...series.values()].flatMap((s) => [
        ...buckets.map((le, i) => ({
          metricName: `${name}_bucket`,
          labels: { ...s.labels, le: String(le) },
          value: s.counts[i] as number,
        })),
        { metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count },
        { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
        { metricName: `${name}_count`, labels: s.labels, value: s.count },
      ]),
    );
    return {
      observe(labels, value) {
        const k = keyOf(labels);
        const s = series.get(k) ?? { labels, counts: buckets.map(() => 0), sum: 0, count: 0 };
        buckets.forEach((le, i) => {
          if (value <= le) s.counts[i] = (s.counts[i] as number) + 1;
        });
        s.sum += value;
        s.count++;
        series.set(k, s);
      },
    };
  };

  register(
    metrics,
    {
      name: 'notifier_endpoint_breaker_state',
      help: 'Circuit breaker per provider endpoint: 0 closed, 1 half-open, 2 open, 3 disabled (410)',
      type: 'gauge',
    },
    () => gauges.breakers().map((b) => ({ labels: b.labels, value: b.state })),
  );
  register(
    metrics,
    {
      name: 'notifier_endpoint_consecutive_failures',
      help: 'Consecutive failed attempts per provider endpoint',
      type: 'gauge',
    },
    () => gauges.breakers().map((b) => ({ labels: b.labels, value: b.failures })),
  );
  register(
    metrics,
    { name: 'notifier_deliveries_in_flight', help: 'POSTs to provider endpoints in flight', type: 'gauge' },
    () => [{ labels: {}, value: gauges.inFlight() }],
  );
  const buckets = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];
  return {
    attempts: counter('notifier_delivery_attempts_total', 'Delivery attempts by outcome'),
    attemptSeconds: histogram('notifier_delivery_attempt_seconds', 'Duration of one POST by outcome', buckets),
    breakerEvents: counter('notifier_breaker_events_total', "Circuit breaker events (opossum's) by host and event"),
    endToEndSeconds: histogram(
      'notifier_notification_latency_seconds',
      "From the interaction event to the provider's 2xx",
      [...buckets, 300, 1800, 7200],
    ),
  };
}
