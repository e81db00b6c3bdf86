/** A seeded pseudo-random stream (mulberry32): the same seed gives the same draws, so a run can be repeated. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A uniform draw in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniform draw in [min, max). */
  between(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** An exponential draw with the given mean (inter-arrival times of a Poisson process). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.next());
  }

  /** One element, chosen by weight. */
  weighted<T>(items: readonly { value: T; weight: number }[]): T {
    const total = items.reduce((s, i) => s + i.weight, 0);
    let x = this.next() * total;
    for (const item of items) {
      x -= item.weight;
      if (x < 0) return item.value;
    }
    return (items[items.length - 1] as { value: T }).value;
  }

  /** A child stream: independent of how many draws the parent makes later. */
  fork(label: number): Rng {
    return new Rng(Math.imul(this.state ^ (label * 0x9e3779b9), 0x85ebca6b) ^ label);
  }
}

/** A 32-bit seed from any string (FNV-1a), so `--seed demo` works as well as `--seed 42`. */
export function seedOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
