import { callTimeBreakDown, type Interval, normalize, speechIntervals } from '../domain/breakdown';
import { type CategoryRule, matchCategories } from '../domain/categories';
import type { Transcriber } from '../domain/transcriber';
import { confidenceOf, formatTranscript, type TimedWord, toTurns } from '../domain/transcript';
import type { CallAudio } from '../domain/wav';
import { detectVoice, vadFrameSeconds } from '../engines/webrtc-vad';
import type { AnalysisDoc, RecordedSegment } from '../store/analysis.model';

/** A finished analysis, before it is stored. */
export type AnalysisResult = NonNullable<AnalysisDoc['result']>;

/** Audio around each speech stretch handed to the recognizer, so word edges are not cut. */
const chunkPad = 0.2;
/** Speech stretches closer than this are recognised as one chunk (fewer, longer utterances decode better). */
const chunkJoin = 0.6;

/** The stretches of one channel to transcribe: its speech intervals, padded and joined. */
export function chunksOf(speech: readonly Interval[], duration: number): Interval[] {
  return normalize(
    speech.map((iv) => ({ start: iv.start - chunkPad, end: iv.end + chunkPad })),
    duration,
  ).reduce<Interval[]>((out, iv) => {
    const last = out[out.length - 1];
    if (last && iv.start - last.end < chunkJoin) last.end = iv.end;
    else out.push({ ...iv });
    return out;
  }, []);
}

/**
 * Analyses two-channel call audio: WebRTC VAD per channel → speech intervals → callTimeBreakDown; each
 * channel's speech chunks → the transcriber → timed words labelled by speaker → transcript, confidence and
 * the account's categories.
 */
export async function analyzeAudio(
  call: CallAudio,
  transcriber: Transcriber,
  rules: readonly CategoryRule[],
  language: string | null,
): Promise<AnalysisResult> {
  const started = Date.now();
  const rate = call.sampleRate;
  const duration = Math.max(call.agent.length, call.customer.length) / rate;
  const speech = {
    agent: speechIntervals(detectVoice(call.agent, rate), vadFrameSeconds),
    customer: speechIntervals(detectVoice(call.customer, rate), vadFrameSeconds),
  };
  const words: TimedWord[] = [];
  for (const speaker of ['agent', 'customer'] as const) {
    const samples = call[speaker];
    for (const chunk of chunksOf(speech[speaker], duration)) {
      const from = Math.floor(chunk.start * rate);
      const to = Math.min(samples.length, Math.ceil(chunk.end * rate));
      const recognized = await transcriber.transcribe(samples.subarray(from, to), rate);
      for (const w of recognized) {
        words.push({ speaker, word: w.word, start: chunk.start + w.start, end: chunk.start + w.end, p: w.p });
      }
    }
  }
  const turns = toTurns(words);
  const transcript = formatTranscript(turns);
  return {
    callTimeBreakDown: callTimeBreakDown(speech.agent, speech.customer, duration),
    transcript,
    confidence: words.length ? confidenceOf(words) : 'Low',
    language: language ?? transcriber.language,
    categories: matchCategories(turns.map((t) => t.text).join('\n'), rules),
    processingMs: Date.now() - started,
    audioSeconds: Math.round(duration * 100) / 100,
  };
}

/**
 * Analyses a recording announced as segments (a platform that sends who spoke when, and maybe what, instead
 * of audio): the breakdown from the segments; the transcript from their text when transcribed upstream (no
 * recognizer scores, so confidence is null), else null.
 */
export function analyzeSegments(
  segments: readonly RecordedSegment[],
  durationMs: number,
  rules: readonly CategoryRule[],
  language: string | null,
  defaultLanguage: string,
): AnalysisResult {
  const started = Date.now();
  const duration = durationMs / 1000;
  const of = (speaker: 'agent' | 'customer') =>
    segments.filter((s) => s.speaker === speaker).map((s) => ({ start: s.startMs / 1000, end: s.endMs / 1000 }));
  const texted = segments.filter((s) => s.text?.trim());
  const turns = [...texted]
    .sort((a, b) => a.startMs - b.startMs)
    .map((s) => ({
      speaker: s.speaker,
      start: s.startMs / 1000,
      end: s.endMs / 1000,
      text: (s.text as string).trim(),
    }));
  return {
    callTimeBreakDown: callTimeBreakDown(of('agent'), of('customer'), duration),
    transcript: turns.length ? formatTranscript(turns) : null,
    confidence: null,
    language: language ?? defaultLanguage,
    categories: matchCategories(turns.map((t) => t.text).join('\n'), rules),
    processingMs: Date.now() - started,
    audioSeconds: Math.round(duration * 100) / 100,
  };
}
