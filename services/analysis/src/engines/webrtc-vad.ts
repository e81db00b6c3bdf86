import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Aggressiveness of the WebRTC VAD: 0 (least) to 3 (most eager to call audio non-speech). */
export type VadMode = 0 | 1 | 2 | 3;

/** Frame length the VAD is run with (it accepts 10, 20 or 30 ms). */
export const vadFrameSeconds = 0.02;

interface FvadExports {
  memory: WebAssembly.Memory;
  fvad_new(): number;
  fvad_free(h: number): void;
  fvad_set_mode(h: number, mode: number): number;
  fvad_set_sample_rate(h: number, rate: number): number;
  fvad_process(h: number, ptr: number, len: number): number;
  malloc(n: number): number;
  free(p: number): void;
}

let compiled: { module: WebAssembly.Module; names: Record<string, string> } | undefined;

/**
 * Loads libfvad (the WebRTC VAD compiled to WebAssembly, npm `@echogarden/fvad-wasm`). Its JS glue is an
 * ES module that needs `import.meta`, which the CommonJS build of this service (and jest) cannot load, so the
 * `.wasm` is instantiated here; the minified export names are read from that glue so a pinned upgrade still
 * resolves them, and a missing one fails loudly at start.
 */
function load(): { module: WebAssembly.Module; names: Record<string, string> } {
  if (compiled) return compiled;
  const dir = dirname(require.resolve('@echogarden/fvad-wasm/package.json'));
  const glue = readFileSync(join(dir, 'fvad.js'), 'utf8');
  const names: Record<string, string> = {};
  for (const m of glue.matchAll(/var _(\w+)=Module\["_\w+"\]=[^;]*?wasmExports\["(\w+)"\]/g)) {
    names[m[1] as string] = m[2] as string;
  }
  const memory = /wasmMemory=wasmExports\["(\w+)"\]/.exec(glue)?.[1];
  const ctors = /___wasm_call_ctors=wasmExports\["(\w+)"\]/.exec(glue)?.[1];
  if (memory) names.memory = memory;
  if (ctors) names.ctors = ctors;
  for (const need of [
    'fvad_new',
    'fvad_free',
    'fvad_set_mode',
    'fvad_set_sample_rate',
    'fvad_process',
    'malloc',
    'free',
    'memory',
  ]) {
    if (!names[need]) throw new Error(`@echogarden/fvad-wasm: export ${need} not found in fvad.js`);
  }
  compiled = { module: new WebAssembly.Module(readFileSync(join(dir, 'fvad.wasm'))), names };
  return compiled;
}

/**
 * WebRTC voice activity detection over one channel: a speech/non-speech decision per 20 ms frame.
 * One instance per call to {@link detectVoice}; the WebAssembly instance is cheap once compiled.
 */
export function detectVoice(samples: Int16Array, sampleRate: number, mode: VadMode = 3): boolean[] {
  const { module, names } = load();
  const instance = new WebAssembly.Instance(module, {
    a: {
      a: () => {
        throw new Error('fvad assertion failed');
      },
      b: () => 0, // heap growth: never needed for one frame buffer; refuse
    },
  });
  const raw = instance.exports as Record<string, unknown>;
  const fn = (k: string) => raw[names[k] as string] as (...a: number[]) => number;
  if (names.ctors) fn('ctors')();
  const vad: FvadExports = {
    memory: raw[names.memory as string] as WebAssembly.Memory,
    fvad_new: fn('fvad_new'),
    fvad_free: fn('fvad_free'),
    fvad_set_mode: fn('fvad_set_mode'),
    fvad_set_sample_rate: fn('fvad_set_sample_rate'),
    fvad_process: fn('fvad_process'),
    malloc: fn('malloc'),
    free: fn('free'),
  };
  const handle = vad.fvad_new();
  if (!handle) throw new Error('fvad_new failed');
  const frameLen = Math.round(sampleRate * vadFrameSeconds);
  const ptr = vad.malloc(frameLen * 2);
  try {
    if (vad.fvad_set_sample_rate(handle, sampleRate) !== 0) throw new Error(`the VAD does not take ${sampleRate} Hz`);
    vad.fvad_set_mode(handle, mode);
    const frames = Math.floor(samples.length / frameLen);
    const out = new Array<boolean>(frames);
    for (let f = 0; f < frames; f++) {
      new Int16Array(vad.memory.buffer, ptr, frameLen).set(samples.subarray(f * frameLen, (f + 1) * frameLen));
      const r = vad.fvad_process(handle, ptr, frameLen);
      if (r < 0) throw new Error('fvad_process failed');
      out[f] = r === 1;
    }
    return out;
  } finally {
    vad.free(ptr);
    vad.fvad_free(handle);
  }
}
