import type { Rng } from './random';

/**
 * A synthesized two-channel call recording (16-bit PCM WAV, agent left, customer right): speaking turns of
 * voiced, syllable-modulated tones with silences between them, so the analysis sees talk, silence and a
 * little cross-talk on the right channels. It carries no words: the transcript is expected to be empty or noise.
 */
export function synthesizeCall(rng: Rng, seconds = 6, rate = 8000): Buffer {
  const frames = Math.round(seconds * rate);
  const left = new Float32Array(frames);
  const right = new Float32Array(frames);
  let t = Math.round(rate * rng.between(0.2, 0.6));
  let agentTurn = true;
  while (t < frames) {
    const len = Math.round(rate * rng.between(0.8, 2.0));
    const pitch = agentTurn ? rng.between(110, 140) : rng.between(180, 230);
    const target = agentTurn ? left : right;
    for (let i = 0; i < len && t + i < frames; i++) {
      const x = i / rate;
      const syllable = 0.5 - 0.5 * Math.cos(2 * Math.PI * 4 * x); // ~4 syllables a second
      const voice = Math.sin(2 * Math.PI * pitch * x) + 0.5 * Math.sin(4 * Math.PI * pitch * x);
      target[t + i] = 0.3 * syllable * voice + 0.01 * (rng.next() - 0.5);
    }
    // Mostly a pause between turns, sometimes an overlap (cross-talk).
    t += len + Math.round(rate * (rng.chance(0.2) ? -0.3 : rng.between(0.2, 0.8)));
    agentTurn = !agentTurn;
  }
  const data = Buffer.alloc(frames * 4);
  for (let i = 0; i < frames; i++) {
    data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, left[i] as number)) * 32767), i * 4);
    data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, right[i] as number)) * 32767), i * 4 + 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(2, 22); // channels
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 4, 28);
  header.writeUInt16LE(4, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}
