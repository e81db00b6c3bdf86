/** A percentile (nearest rank) of unsorted samples; null without samples. */
export function percentile(samples: number[], p: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Service level: answered within the threshold over answered plus abandoned (after the threshold or not). */
export function serviceLevel(answeredWithin: number, answered: number, abandoned: number): number | null {
  const base = answered + abandoned;
  return base === 0 ? null : answeredWithin / base;
}

/** Counts by a key. */
export class Tally {
  readonly counts = new Map<string, number>();

  /** Adds n under key. */
  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }

  /** The sum of every count. */
  total(): number {
    let s = 0;
    for (const v of this.counts.values()) s += v;
    return s;
  }

  /** A plain object, keys sorted. */
  toJSON(): Record<string, number> {
    return Object.fromEntries([...this.counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
  }
}
