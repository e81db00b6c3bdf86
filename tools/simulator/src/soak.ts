import { readdirSync, readFileSync } from 'node:fs';

/** One sample of one service. */
export interface ServiceSample {
  at: number;
  rssBytes: number | null;
  /** CPU seconds used since the process started (user + system). */
  cpuSeconds: number | null;
  /** Sum of kafka_consumer_lag over the service's partitions. */
  lag: number | null;
  /** 5xx answers plus dead-lettered events so far. */
  errors: number | null;
}

/** The suite's services in port order (the local layout: gateway first). */
export const serviceNames = [
  'gateway',
  'routing',
  'provider-registry',
  'notifier',
  'summaries',
  'analysis',
  'statistics',
] as const;

/** Sums a Prometheus text metric's samples whose labels match `filter`. */
export function sumMetric(text: string, name: string, filter: (labels: string) => boolean = () => true): number | null {
  let sum = 0;
  let found = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    if (!filter(m[2] ?? '')) continue;
    const v = Number(m[3]);
    if (Number.isFinite(v)) {
      sum += v;
      found = true;
    }
  }
  return found ? sum : null;
}

/** The pid of the local process serving `services/<name>` on `port` (its environment's PORT), from /proc. */
export function findPid(name: string, port: number): number | null {
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return null;
  }
  for (const e of entries) {
    try {
      const cmd = readFileSync(`/proc/${e}/cmdline`, 'utf8');
      if (!cmd.includes(`services/${name}/src/main.ts`)) continue;
      const env = readFileSync(`/proc/${e}/environ`, 'utf8').split('\0');
      if (env.includes(`PORT=${port}`)) return Number(e);
    } catch {
      // gone, or not ours to read
    }
  }
  return null;
}

/** RSS (bytes) and CPU seconds of a pid from /proc (null when gone). */
export function procUsage(pid: number): { rssBytes: number; cpuSeconds: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime + stime (fields 14 and 15)
    return { rssBytes: rssKb * 1024, cpuSeconds: ticks / 100 };
  } catch {
    return null;
  }
}

/** Samples every service: /proc for RSS and CPU when it runs here, its /metrics for lag and errors. */
export class Sampler {
  readonly samples = new Map<string, ServiceSample[]>();
  private readonly pids = new Map<string, number | null>();

  constructor(private readonly basePort: number) {}

  /** Takes one sample of each service. */
  async sample(): Promise<void> {
    const at = Date.now();
    await Promise.all(
      serviceNames.map(async (name, i) => {
        const port = this.basePort + i;
        let pid = this.pids.get(name);
        if (pid === undefined || (pid !== null && !procUsage(pid))) {
          pid = findPid(name, port);
          this.pids.set(name, pid);
        }
        const usage = pid ? procUsage(pid) : null;
        let text = '';
        try {
          const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
          text = res.ok ? await res.text() : '';
        } catch {
          text = '';
        }
        const fivexx = sumMetric(text, 'http_request_duration_seconds_count', (l) => /status="5\d\d"/.test(l)) ?? 0;
        const dead = sumMetric(text, 'kafka_consumed_events_total', (l) => /outcome="dead_lettered"/.test(l)) ?? 0;
        const sample: ServiceSample = {
          at,
          rssBytes: usage?.rssBytes ?? sumMetric(text, 'process_resident_memory_bytes'),
          cpuSeconds: usage?.cpuSeconds ?? sumMetric(text, 'process_cpu_seconds_total'),
          lag: text ? (sumMetric(text, 'kafka_consumer_lag') ?? 0) : null,
          errors: text ? fivexx + dead : null,
        };
        const list = this.samples.get(name) ?? [];
        list.push(sample);
        this.samples.set(name, list);
      }),
    );
  }
}

/** The soak's verdict per service. */
export interface ServiceSoak {
  samples: number;
  rssFirstMb: number | null;
  rssLastMb: number | null;
  /** Mean RSS of the last window over the first window, minus 1. */
  rssGrowth: number | null;
  cpuPercentMean: number | null;
  lagMax: number | null;
  lagLast: number | null;
  /** New 5xx answers and dead-lettered events during the soak. */
  errors: number | null;
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Summarises one service's samples: RSS growth (first vs last `windowMs`), CPU, lag and new errors. */
export function summarise(samples: ServiceSample[], windowMs: number): ServiceSoak {
  if (samples.length === 0) {
    return {
      samples: 0,
      rssFirstMb: null,
      rssLastMb: null,
      rssGrowth: null,
      cpuPercentMean: null,
      lagMax: null,
      lagLast: null,
      errors: null,
    };
  }
  const t0 = (samples[0] as ServiceSample).at;
  const tn = (samples[samples.length - 1] as ServiceSample).at;
  const rss = (pick: ServiceSample[]) => mean(pick.map((s) => s.rssBytes).filter((x): x is number => x !== null));
  const first = rss(samples.filter((s) => s.at - t0 <= windowMs));
  const last = rss(samples.filter((s) => tn - s.at <= windowMs));
  const withCpu = samples.filter((s) => s.cpuSeconds !== null);
  const cpu =
    withCpu.length >= 2
      ? (((withCpu[withCpu.length - 1] as ServiceSample).cpuSeconds as number) -
          ((withCpu[0] as ServiceSample).cpuSeconds as number)) /
        (((withCpu[withCpu.length - 1] as ServiceSample).at - (withCpu[0] as ServiceSample).at) / 1000)
      : null;
  const lags = samples.map((s) => s.lag).filter((x): x is number => x !== null);
  const errs = samples.map((s) => s.errors).filter((x): x is number => x !== null);
  const mb = (x: number | null) => (x === null ? null : Math.round((x / 1048576) * 10) / 10);
  return {
    samples: samples.length,
    rssFirstMb: mb(first),
    rssLastMb: mb(last),
    rssGrowth: first && last ? Math.round((last / first - 1) * 1000) / 1000 : null,
    cpuPercentMean: cpu === null ? null : Math.round(cpu * 1000) / 10,
    lagMax: lags.length ? Math.max(...lags) : null,
    lagLast: lags.length ? (lags[lags.length - 1] as number) : null,
    errors: errs.length ? (errs[errs.length - 1] as number) - (errs[0] as number) : null,
  };
}
