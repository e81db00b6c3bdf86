import { Writable } from 'node:stream';

/** A stream that keeps every log line written to it, for tests that read what a service logged. */
export class CapturedLogs extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }

  /** Every captured line as text. */
  text(): string {
    return this.lines.join('\n');
  }
}
