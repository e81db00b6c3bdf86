/** One Server-Sent Event as the gateway's `/events/stream` sends it. */
export interface SseMessage {
  /** The `id:` field: the resume cursor (Last-Event-ID). */
  id?: string;
  /** The `event:` field: the event type, e.g. `interaction.assigned`. */
  event: string;
  data: string;
}

/**
 * Incremental parser of a `text/event-stream` body (WHATWG HTML §9.2): feed it decoded text chunks as they
 * arrive, get whole messages back. Comments (heartbeats) and `retry:` are dropped. Written by hand because
 * EventSource cannot send the Authorization header the gateway requires.
 */
export class SseParser {
  private buffer = '';
  private id: string | undefined;
  private event = '';
  private data: string[] = [];

  /** Parses `chunk`; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk;
    const out: SseMessage[] = [];
    for (;;) {
      const m = /\r\n|\r|\n/.exec(this.buffer);
      // A lone \r at the very end may be the first half of \r\n: wait for more.
      if (!m || (m[0] === '\r' && m.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, m.index);
      this.buffer = this.buffer.slice(m.index + m[0].length);
      const done = this.line(line);
      if (done) out.push(done);
    }
    return out;
  }

  private line(line: string): SseMessage | undefined {
    if (line === '') {
      if (!this.data.length) {
        this.event = '';
        return undefined;
      }
      const msg: SseMessage = { event: this.event || 'message', data: this.data.join('\n') };
      if (this.id !== undefined) msg.id = this.id;
      this.event = '';
      this.data = [];
      return msg;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }
}
