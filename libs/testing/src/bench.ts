import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * One row of the `./cc bench` table (bench/summary.ts). `id` names a row of the table's catalogue
 * (bench/summary.ts `catalogue`); a row no benchmark wrote prints "n/a (not built)".
 */
export interface BenchRow {
  id: string;
  /** What was measured, e.g. "812 req/s, p50/p99 9/31 ms". */
  value: string;
  /** What it is compared with, measured in the same run, e.g. "direct 2,410 req/s (ratio 0.34)". */
  beside?: string;
  /** Numbers for machines (summary.json), e.g. { ratio: 0.34, p50Ms: 9 }; null: not measured in this run. */
  numbers?: Record<string, number | null>;
}

/** The repository's bench/results folder, where every benchmark writes its JSON. */
export const benchResultsDir = resolve(__dirname, '../../../bench/results');

/**
 * Writes bench/results/<name>.json: the benchmark's own details plus its rows for the one table
 * `./cc bench` prints. Every benchmark contributes its rows through this helper.
 */
export function writeBenchResult(name: string, details: Record<string, unknown>, rows: BenchRow[]): string {
  const file = resolve(benchResultsDir, `${name}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ bench: name, at: new Date().toISOString(), ...details, rows }, null, 2)}\n`);
  return file;
}

/** p-th percentile of an ascending array (0 when empty). */
export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/** A number for a table cell: 1,234 / 12.3 / 0.42. */
export function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  const a = Math.abs(n);
  return a >= 100 ? Math.round(n).toLocaleString('en-US') : a >= 10 ? n.toFixed(1) : n.toFixed(2);
}
