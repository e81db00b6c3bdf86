import type { Confidence } from './analysis-item';

/** A recognised word on the call's timeline (seconds from the start of the call). */
export interface TimedWord {
  speaker: 'agent' | 'customer';
  word: string;
  start: number;
  end: number;
  /** Posterior probability from the recognizer, 0..1 (absent when transcribed upstream). */
  p?: number;
}

/** A turn of the transcript: consecutive words of one speaker. */
export interface Turn {
  speaker: 'agent' | 'customer';
  start: number;
  end: number;
  text: string;
}

/** A gap longer than this (seconds) between one speaker's words starts a new turn. */
const turnGap = 1.0;

/**
 * Words (both channels) as turns: each speaker's words grouped until a pause longer than {@link turnGap}, then
 * the turns ordered by start, so cross-talk shows as two overlapping turns rather than interleaved words.
 */
export function toTurns(words: readonly TimedWord[]): Turn[] {
  const turns: Turn[] = [];
  for (const speaker of ['agent', 'customer'] as const) {
    let last: Turn | undefined;
    for (const w of words.filter((x) => x.speaker === speaker).sort((a, b) => a.start - b.start)) {
      if (last && w.start - last.end <= turnGap) {
        last.text += ` ${w.word}`;
        last.end = Math.max(last.end, w.end);
      } else {
        last = { speaker, start: w.start, end: w.end, text: w.word };
        turns.push(last);
      }
    }
  }
  return turns.sort((a, b) => a.start - b.start || (a.speaker === 'agent' ? -1 : 1));
}

const stamp = (s: number) => {
  const m = Math.floor(s / 60);
  const sec = s - m * 60;
  return `${String(m).padStart(2, '0')}:${sec.toFixed(1).padStart(4, '0')}`;
};

/** The transcript as text, one turn a line: `[00:01.2 Agent] thank you for calling`. */
export function formatTranscript(turns: readonly Turn[]): string {
  return turns.map((t) => `[${stamp(t.start)} ${t.speaker === 'agent' ? 'Agent' : 'Customer'}] ${t.text}`).join('\n');
}

/**
 * Confidence from the recognizer's word posteriors, weighted by word duration: High when the mean is at
 * least 0.7, Medium at least 0.4, Low below (and Low when nothing was recognised in audio with speech).
 */
export const confidenceThresholds = { high: 0.7, medium: 0.4 } as const;

/** The confidence label of a transcript's words (see {@link confidenceThresholds}); null without scores. */
export function confidenceOf(words: readonly TimedWord[]): Confidence | null {
  const scored = words.filter((w) => w.p !== undefined);
  if (!scored.length) return null;
  let weight = 0;
  let sum = 0;
  for (const w of scored) {
    const d = Math.max(0.01, w.end - w.start);
    weight += d;
    sum += d * (w.p as number);
  }
  const mean = sum / weight;
  return mean >= confidenceThresholds.high ? 'High' : mean >= confidenceThresholds.medium ? 'Medium' : 'Low';
}
