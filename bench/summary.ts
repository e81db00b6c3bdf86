/**
 * Prints the ONE table of `./cc bench` and writes bench/results/summary.json. Every benchmark writes
 * bench/results/<name>.json with `rows` (libs/testing `writeBenchResult`); this reads the rows written
 * since BENCH_SINCE (the start of the run, ISO time) and lays them out in the catalogue's order. A
 * catalogue row nobody wrote prints "n/a (not built)" when no benchmark measures it yet, "n/a (not run)"
 * when its benchmark did not finish in this run.
 *
 * To add a row: add { id, what, by } to `catalogue` below, and in the benchmark that measures it call
 * writeBenchResult(name, details, [{ id, value, beside, numbers }]). A row whose id ends with ".*" takes
 * every row id with that prefix (one per process, e.g. idle.cpu.routing).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BenchRow } from '@cc/testing';

interface CatalogueRow {
  id: string;
  what: string;
  /** The benchmark file that writes the row, relative to the repository; absent: not built yet. */
  by?: string;
  target?: string;
}

const catalogue: CatalogueRow[] = [
  {
    id: 'store.raw',
    what: 'Store raw rates: insert, indexed find, claim (c=16)',
    by: 'bench/store.bench.ts',
    target: 'indexed find ≥ 500/s',
  },
  {
    id: 'store.outbox-text',
    what: 'Outbox events as JSON text vs as objects: interaction-shaped aggregates inserted (50 at a time) and cleared',
    by: 'bench/store.bench.ts',
  },
  {
    id: 'store.outbox-halves',
    what: 'Store CPU per interaction-shaped aggregate: its insert (50 at a time) and its outbox clear (bulk of 50); the rate the two together allow with two cores for the store',
    by: 'bench/store.bench.ts',
  },
  {
    id: 'gateway.direct',
    what: 'Gateway vs direct: throughput ratio (c=32), added p50 (c=1)',
    by: 'services/gateway/bench/gateway.bench.ts',
    target: '≥ 0.7 × direct at c=32; +p50 ≤ 2 ms at c=1',
  },
  {
    id: 'gateway.event-stream',
    what: 'Event stream: deliveries/s to 20 streams, Kafka publish → SSE receive p50/p99',
    by: 'services/gateway/bench/event-stream.bench.ts',
  },
  { id: 'invoke.1', what: 'Invoke 1-object: req/s, objects/s, p50/p99', by: 'services/routing/bench/invoke.bench.ts' },
  {
    id: 'invoke.50',
    what: 'Invoke 50-object: req/s, objects/s, p50/p99',
    by: 'services/routing/bench/invoke.bench.ts',
  },
  { id: 'dispatch.offer', what: 'Dispatch → offer p50/p99', by: 'services/routing/bench/invoke.bench.ts' },
  {
    id: 'assign.post',
    what: 'Assignment → provider POST p50/p99 at a fixed offered rate',
    by: 'services/notifier/bench/notifier.bench.ts',
    target: 'p99 ≤ 250 ms at 100/s',
  },
  {
    id: 'assign.post.hanging',
    what: 'Assignment → POST p50/p99 at the same rate, a second endpoint hanging',
    by: 'services/notifier/bench/notifier.bench.ts',
    target: 'p99 ≤ 1.2 × without',
  },
  {
    id: 'assign.burst',
    what: 'Burst of 1,000 notifications to one healthy endpoint: delivered/s',
    by: 'services/notifier/bench/notifier.bench.ts',
    target: '≥ 300/s',
  },
  {
    id: 'summaries.consume',
    what: 'Summaries: activity events aggregated/s vs raw kafkajs consume (same run)',
    by: 'services/summaries/bench/summaries.bench.ts',
    target: '≥ 0.5 × raw',
  },
  {
    id: 'statistics.consume',
    what: 'Statistics: activity events recorded/s vs raw kafkajs consume (same run)',
    by: 'services/statistics/bench/statistics.bench.ts',
    target: '≥ 0.5 × raw',
  },
  { id: 'bus.consume', what: 'Bus consumer events/s: with store dedupe vs without', by: 'bench/bus.bench.ts' },
  {
    id: 'summaries.query',
    what: 'Agent-summaries query (1 day × 500 agents, limit=1000) p99',
    by: 'services/summaries/bench/summaries.bench.ts',
    target: 'p99 ≤ 100 ms',
  },
  {
    id: 'statistics.query',
    what: 'Statistics 1-day agent-activities query (limit=5000) p99',
    by: 'services/statistics/bench/statistics.bench.ts',
    target: 'p99 ≤ 200 ms at 1,000,000 stored',
  },
  {
    id: 'idle.cpu.*',
    what: 'Idle CPU % and RSS over 30 s:',
    by: 'bench/idle.bench.ts',
    target: 'each ≤ 1 % CPU',
  },
  {
    id: 'idle.total',
    what: 'The whole suite at rest, nothing queued: CPU summed over every service, the store and Kafka',
    by: 'bench/idle.bench.ts',
  },
  {
    id: 'idle.backlog',
    what: 'The whole suite at rest with 5,000 interactions queued and no agent Ready (same sum)',
    by: 'bench/idle.bench.ts',
    target: '≤ 5 % of one core in total',
  },
  {
    id: 'idle.store',
    what: 'Store commands/s at idle',
    by: 'bench/idle.bench.ts',
    target: '0 outside the ≥ 30 s sweep',
  },
  {
    id: 'analysis.rtf',
    what: 'Analysis real-time factor (processing s per audio s: VAD + PocketSphinx + categories)',
    by: 'services/analysis/bench/analysis.bench.ts',
    target: '≤ 0.5',
  },
  {
    id: 'analysis.read',
    what: '`?calls=` 50-GUID read p99 (read cache; cold: cache emptied before each)',
    by: 'services/analysis/bench/analysis.bench.ts',
    target: '≤ 100 ms',
  },
  {
    id: 'invoke.stored',
    what: 'Invoke rate with 100,000 interactions stored vs empty store',
    by: 'services/routing/bench/invoke.bench.ts',
    target: '≥ 0.8 × empty',
  },
  {
    id: 'invoke.stored.50',
    what: 'Invoke 50-object rate with 100,000 interactions stored vs empty store',
    by: 'services/routing/bench/invoke.bench.ts',
    target: '≥ 0.8 × empty',
  },
  {
    id: 'invoke.backlog.idle',
    what: '5,000 interactions queued, no agent Ready: CPU over 30 s (routing + gateway; store beside), store commands',
    by: 'services/routing/bench/invoke.bench.ts',
    target: '≤ 5 % of one core in total',
  },
  {
    id: 'invoke.backlog',
    what: 'Invoke 1-object rate with 5,000 queued and no agent Ready vs empty queue',
    by: 'services/routing/bench/invoke.bench.ts',
    target: '≥ 0.8 × empty queue',
  },
  {
    id: 'invoke.commands',
    what: 'Store commands per Invoke (1-object, 50-object): inside the request, and all it causes (pass, outbox clear)',
    by: 'services/routing/bench/invoke.bench.ts',
  },
];

const root = resolve(__dirname, '..');
const resultsDir = resolve(root, 'bench/results');
const since = Date.parse(process.env.BENCH_SINCE ?? '1970-01-01T00:00:00Z');

function readRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const f of readdirSync(resultsDir).filter((n) => n.endsWith('.json') && n !== 'summary.json')) {
    try {
      const doc = JSON.parse(readFileSync(resolve(resultsDir, f), 'utf8')) as { at?: string; rows?: BenchRow[] };
      if (!Array.isArray(doc.rows) || !(Date.parse(doc.at ?? '') >= since)) continue;
      // Only table rows (an id); a benchmark's own detail rows of another shape are not the table's.
      rows.push(...doc.rows.filter((r) => typeof r?.id === 'string'));
    } catch {
      // not a benchmark result
    }
  }
  return rows;
}

interface Line {
  id: string;
  what: string;
  value: string;
  beside: string;
  target: string;
  numbers?: Record<string, number | null>;
}

function lines(rows: BenchRow[]): Line[] {
  const out: Line[] = [];
  for (const c of catalogue) {
    const matched = c.id.endsWith('.*')
      ? rows.filter((r) => r.id.startsWith(c.id.slice(0, -1)))
      : rows.filter((r) => r.id === c.id);
    if (matched.length === 0) {
      const missing = !c.by || !existsSync(resolve(root, c.by)) ? 'n/a (not built)' : 'n/a (not run)';
      out.push({ id: c.id, what: c.what, value: missing, beside: '', target: c.target ?? '' });
      continue;
    }
    for (const r of matched) {
      const suffix = c.id.endsWith('.*') ? ` ${r.id.slice(c.id.length - 1)}` : '';
      out.push({
        id: r.id,
        what: `${c.what}${suffix}`,
        value: r.value,
        beside: r.beside ?? '',
        target: c.target ?? '',
        numbers: r.numbers,
      });
    }
  }
  return out;
}

function table(ls: Line[]): string {
  const head = ['measure', 'measured', 'beside it (same run)', 'target'];
  const cells = ls.map((l) => [l.what, l.value, l.beside, l.target]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const row = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [row(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(row)].join('\n');
}

const ls = lines(readRows());
const text = table(ls);
writeFileSync(
  resolve(resultsDir, 'summary.json'),
  `${JSON.stringify({ at: new Date().toISOString(), since: new Date(since).toISOString(), rows: ls }, null, 2)}\n`,
);
process.stdout.write(`\n${text}\n\n[bench] wrote bench/results/summary.json\n`);
