import { SseParser } from '../src/sse';

describe('SseParser', () => {
  it('returns whole messages with id, event and data, across chunk boundaries', () => {
    const p = new SseParser();
    expect(p.push('id: 0-1\nevent: interaction.queued\nda')).toEqual([]);
    expect(p.push('ta: {"a":1}\n\n')).toEqual([{ id: '0-1', event: 'interaction.queued', data: '{"a":1}' }]);
  });

  it('drops heartbeat comments and keeps the last id for later messages', () => {
    const p = new SseParser();
    const out = p.push(': heartbeat\n\nid: 7\nevent: x.y\ndata: 1\n\n: hb\n\nevent: x.z\ndata: 2\n\n');
    expect(out).toEqual([
      { id: '7', event: 'x.y', data: '1' },
      { id: '7', event: 'x.z', data: '2' },
    ]);
  });

  it('joins multi-line data, accepts CRLF (split between chunks) and defaults the event name', () => {
    const p = new SseParser();
    expect(p.push('data: a\r')).toEqual([]);
    expect(p.push('\ndata:b\r\n\r\n')).toEqual([{ event: 'message', data: 'a\nb' }]);
  });
});
