/** A stretch of time in seconds, `start` < `end`. */
export interface Interval {
  start: number;
  end: number;
}

/** Seconds of the call by who was talking (the spec's callTimeBreakDown). */
export interface CallTimeBreakDown {
  agent: number;
  customer: number;
  silence: number;
  crossTalk: number;
}

/** How voice-activity frames become speech intervals. */
export interface Smoothing {
  /** Gaps shorter than this (seconds) inside speech are speech: pauses between words, VAD dropouts. */
  bridgeGap: number;
  /** Speech shorter than this (seconds) is noise: clicks, breaths. */
  minSpeech: number;
}

/** Defaults chosen on the fixtures: word gaps stay speech, a 0.3 s pause starts silence. */
export const defaultSmoothing: Smoothing = { bridgeGap: 0.3, minSpeech: 0.1 };

/** Turns per-frame voice decisions into speech intervals (seconds), bridging short gaps and dropping blips. */
export function speechIntervals(voiced: ArrayLike<boolean>, frameSeconds: number, s: Smoothing = defaultSmoothing) {
  const raw: Interval[] = [];
  let open = -1;
  for (let i = 0; i <= voiced.length; i++) {
    const v = i < voiced.length && voiced[i];
    if (v && open < 0) open = i;
    if (!v && open >= 0) {
      raw.push({ start: open * frameSeconds, end: i * frameSeconds });
      open = -1;
    }
  }
  const bridged: Interval[] = [];
  for (const iv of raw) {
    const last = bridged[bridged.length - 1];
    if (last && iv.start - last.end < s.bridgeGap) last.end = iv.end;
    else bridged.push({ ...iv });
  }
  return bridged.filter((iv) => iv.end - iv.start >= s.minSpeech);
}

/** Sorted, non-overlapping union of intervals clipped to [0, duration]. */
export function normalize(intervals: readonly Interval[], duration: number): Interval[] {
  const sorted = intervals
    .map((iv) => ({ start: Math.max(0, iv.start), end: Math.min(duration, iv.end) }))
    .filter((iv) => iv.end > iv.start)
    .sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const iv of sorted) {
    const last = out[out.length - 1];
    if (last && iv.start <= last.end) last.end = Math.max(last.end, iv.end);
    else out.push({ ...iv });
  }
  return out;
}

const total = (ivs: Interval[]) => ivs.reduce((s, iv) => s + (iv.end - iv.start), 0);

function intersect(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as Interval;
    const y = b[j] as Interval;
    const start = Math.max(x.start, y.start);
    const end = Math.min(x.end, y.end);
    if (end > start) out.push({ start, end });
    if (x.end < y.end) i++;
    else j++;
  }
  return out;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The breakdown of a call of `duration` seconds from each speaker's speech intervals: agent only, customer
 * only, both (crossTalk) and nobody (silence); the four add up to the duration (to rounding).
 */
export function callTimeBreakDown(agent: readonly Interval[], customer: readonly Interval[], duration: number) {
  const a = normalize(agent, duration);
  const c = normalize(customer, duration);
  const both = total(intersect(a, c));
  const agentAll = total(a);
  const customerAll = total(c);
  const anyone = agentAll + customerAll - both;
  return {
    agent: round2(agentAll - both),
    customer: round2(customerAll - both),
    crossTalk: round2(both),
    silence: round2(Math.max(0, duration - anyone)),
  } satisfies CallTimeBreakDown;
}
