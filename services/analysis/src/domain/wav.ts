import { analysisError } from './errors';

/** Decoded two-speaker audio: 16-bit samples per channel at one sample rate. */
export interface CallAudio {
  sampleRate: number;
  agent: Int16Array;
  customer: Int16Array;
}

/** One decoded WAV file. */
export interface Wav {
  sampleRate: number;
  channels: Int16Array[];
}

/** The rate the pipeline works at (WebRTC VAD and the recognizer's model both take 16 kHz). */
export const workRate = 16000;

const bad = (msg: string) => analysisError('ANALYSIS.BAD_AUDIO', msg, [{ pointer: '/body', message: msg }]);
const unsupported = (msg: string) =>
  analysisError('ANALYSIS.UNSUPPORTED_AUDIO', msg, [{ pointer: '/body', message: msg }]);

/**
 * Parses a RIFF/WAVE file: PCM 16-bit, 1 or 2 channels, 8 to 48 kHz. Anything else is a 415 (another
 * encoding) or a 400 (not a WAV file, truncated, empty).
 */
export function parseWav(buf: Buffer): Wav {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw bad('The body is not a RIFF/WAVE file');
  }
  let offset = 12;
  let fmt: { format: number; channels: number; rate: number; bits: number } | undefined;
  let data: Buffer | undefined;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    let size = buf.readUInt32LE(offset + 4);
    const start = offset + 8;
    // Streaming writers leave 0 or 0xFFFFFFFF as the data size: take what is there.
    if (id === 'data' && (size === 0 || size === 0xffffffff || start + size > buf.length)) size = buf.length - start;
    if (start + size > buf.length) throw bad(`The WAV chunk ${JSON.stringify(id)} is truncated`);
    if (id === 'fmt ') {
      if (size < 16) throw bad('The WAV fmt chunk is too short');
      let format = buf.readUInt16LE(start);
      if (format === 0xfffe && size >= 40) format = buf.readUInt16LE(start + 24); // WAVE_FORMAT_EXTENSIBLE
      fmt = {
        format,
        channels: buf.readUInt16LE(start + 2),
        rate: buf.readUInt32LE(start + 4),
        bits: buf.readUInt16LE(start + 14),
      };
    } else if (id === 'data') {
      data = buf.subarray(start, start + size);
    }
    offset = start + size + (size % 2);
  }
  if (!fmt) throw bad('The WAV file has no fmt chunk');
  if (!data) throw bad('The WAV file has no data chunk');
  if (fmt.format !== 1) throw unsupported(`Only PCM WAV is accepted (format tag ${fmt.format} is not PCM)`);
  if (fmt.bits !== 16) throw unsupported(`Only 16-bit PCM is accepted (got ${fmt.bits}-bit)`);
  if (fmt.channels < 1 || fmt.channels > 2) throw unsupported(`1 or 2 channels are accepted (got ${fmt.channels})`);
  if (fmt.rate < 8000 || fmt.rate > 48000)
    throw unsupported(`Sample rates of 8 to 48 kHz are accepted (got ${fmt.rate})`);
  const frames = Math.floor(data.length / (2 * fmt.channels));
  if (frames < fmt.rate / 10) throw bad('The recording is shorter than 0.1 s');
  const channels = Array.from({ length: fmt.channels }, () => new Int16Array(frames));
  for (let i = 0; i < frames; i++) {
    for (let c = 0; c < fmt.channels; c++) {
      (channels[c] as Int16Array)[i] = data.readInt16LE((i * fmt.channels + c) * 2);
    }
  }
  return { sampleRate: fmt.rate, channels };
}

/** Which stereo channel carries the agent. */
export type AgentChannel = 'left' | 'right';

/** A stereo WAV as call audio at {@link workRate}: one channel per speaker. */
export function stereoCall(wav: Wav, agentChannel: AgentChannel = 'left'): CallAudio {
  if (wav.channels.length !== 2) {
    throw unsupported(
      'A single WAV must be stereo (agent on one channel, customer on the other); send two mono parts otherwise',
    );
  }
  const [left, right] = wav.channels as [Int16Array, Int16Array];
  const [agent, customer] = agentChannel === 'left' ? [left, right] : [right, left];
  return { sampleRate: workRate, agent: resample(agent, wav.sampleRate), customer: resample(customer, wav.sampleRate) };
}

/** Two mono WAVs (agent, customer) as call audio; the shorter part is padded with silence. */
export function monoPartsCall(agent: Wav, customer: Wav): CallAudio {
  for (const [name, w] of [
    ['agent', agent],
    ['customer', customer],
  ] as const) {
    if (w.channels.length !== 1) throw unsupported(`The ${name} part must be a mono WAV`);
  }
  const a = resample(agent.channels[0] as Int16Array, agent.sampleRate);
  const c = resample(customer.channels[0] as Int16Array, customer.sampleRate);
  const n = Math.max(a.length, c.length);
  return { sampleRate: workRate, agent: padTo(a, n), customer: padTo(c, n) };
}

function padTo(x: Int16Array, n: number): Int16Array {
  if (x.length === n) return x;
  const out = new Int16Array(n);
  out.set(x);
  return out;
}

/** Linear-interpolation resampling to {@link workRate} (speech bands survive it; the VAD and recognizer need 16 kHz). */
export function resample(x: Int16Array, fromRate: number, toRate = workRate): Int16Array {
  if (fromRate === toRate) return x;
  const n = Math.floor((x.length * toRate) / fromRate);
  const out = new Int16Array(n);
  const step = fromRate / toRate;
  for (let i = 0; i < n; i++) {
    const pos = i * step;
    const j = Math.floor(pos);
    const f = pos - j;
    const a = x[j] ?? 0;
    const b = x[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * f);
  }
  return out;
}

/** A stereo 16-bit PCM WAV file (channel 0 left). */
export function encodeStereoWav(left: Int16Array, right: Int16Array, sampleRate: number): Buffer {
  const frames = Math.max(left.length, right.length);
  const buf = Buffer.alloc(44 + frames * 4);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + frames * 4, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(2, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 4, 28);
  buf.writeUInt16LE(4, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(frames * 4, 40);
  for (let i = 0; i < frames; i++) {
    buf.writeInt16LE(left[i] ?? 0, 44 + i * 4);
    buf.writeInt16LE(right[i] ?? 0, 46 + i * 4);
  }
  return buf;
}

/** A mono 16-bit PCM WAV file. */
export function encodeMonoWav(x: Int16Array, sampleRate: number): Buffer {
  const buf = Buffer.alloc(44 + x.length * 2);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + x.length * 2, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * 2, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(x.length * 2, 40);
  for (let i = 0; i < x.length; i++) buf.writeInt16LE(x[i] as number, 44 + i * 2);
  return buf;
}
