/** A recognised word within one audio chunk (seconds from the chunk's start). */
export interface RecognizedWord {
  word: string;
  start: number;
  end: number;
  /** Posterior probability 0..1. */
  p: number;
}

/**
 * A speech-to-text engine: 16 kHz 16-bit mono audio in, timed words with scores out. The default is
 * PocketSphinx in a warm Python worker; another engine plugs in by implementing this and choosing it in
 * the service's composition (ANALYSIS_TRANSCRIBER).
 */
export interface Transcriber {
  /** Engine name for logs and metrics. */
  readonly name: string;
  /** The language its model recognises (ISO code), e.g. `en-US`. */
  readonly language: string;
  transcribe(audio: Int16Array, sampleRate: number): Promise<RecognizedWord[]>;
  close(): Promise<void>;
}
