import { normalizeText } from './categories';

/** Word-level edit distance (substitutions, insertions, deletions) between a reference and a hypothesis. */
export function wordErrors(reference: string, hypothesis: string): { errors: number; words: number } {
  const ref = normalizeText(reference).split(' ').filter(Boolean);
  const hyp = normalizeText(hypothesis).split(' ').filter(Boolean);
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const cur = [i];
    for (let j = 1; j <= hyp.length; j++) {
      const same = ref[i - 1] === hyp[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + same);
    }
    prev = cur;
  }
  return { errors: prev[hyp.length] as number, words: ref.length };
}

/** One speaker's words of a formatted transcript (`[mm:ss.s Agent] ...` lines), in order. */
export function speakerText(transcript: string, speaker: 'Agent' | 'Customer'): string {
  return transcript
    .split('\n')
    .filter((line) => line.includes(` ${speaker}] `))
    .map((line) => line.slice(line.indexOf('] ') + 2))
    .join(' ');
}
