import { formatCursor, parseCursor, ResumeWindow, sseComment, sseMessage } from '../../src/domain/event-stream';

const ev = (accountId: string, n: number) => ({ accountId, type: 'interaction.queued', json: `{"n":${n}}` });

describe('event stream cursors', () => {
  it('round-trips a cursor of this run and refuses another run, garbage and huge numbers', () => {
    expect(parseCursor('ep1', formatCursor('ep1', 42))).toBe(42);
    expect(parseCursor('ep1', formatCursor('ep2', 42))).toBeUndefined();
    expect(parseCursor('ep1', 'ep1.')).toBeUndefined();
    expect(parseCursor('ep1', 'ep1.4x')).toBeUndefined();
    expect(parseCursor('ep1', '42')).toBeUndefined();
    expect(parseCursor('ep1', `ep1.${'9'.repeat(20)}`)).toBeUndefined();
  });
});

describe('ResumeWindow', () => {
  it("replays only the account's events after the cursor, in order", () => {
    const w = new ResumeWindow(10);
    for (let i = 1; i <= 6; i++) w.append(ev(i % 2 ? 'a' : 'b', i));
    const r = w.resume('a', 2);
    expect(r).toEqual({
      kind: 'replay',
      events: [expect.objectContaining({ seq: 3 }), expect.objectContaining({ seq: 5 })],
    });
    expect(w.resume('a', 6)).toEqual({ kind: 'replay', events: [] });
  });

  it('keeps a bounded window across wrap-around and resets a cursor older than it', () => {
    const w = new ResumeWindow(3);
    for (let i = 1; i <= 7; i++) w.append(ev('a', i));
    expect(w.oldest).toBe(5);
    // After 4: events 5, 6, 7 are all still held.
    expect(w.resume('a', 4)).toEqual({
      kind: 'replay',
      events: [5, 6, 7].map((seq) => expect.objectContaining({ seq })),
    });
    // After 3: event 4 was evicted, so the client would miss it.
    expect(w.resume('a', 3)).toEqual({ kind: 'reset', reason: 'outside-window' });
  });

  it('resets an unknown cursor or one ahead of the head', () => {
    const w = new ResumeWindow(3);
    w.append(ev('a', 1));
    expect(w.resume('a', undefined)).toEqual({ kind: 'reset', reason: 'unknown-cursor' });
    expect(w.resume('a', 2)).toEqual({ kind: 'reset', reason: 'unknown-cursor' });
    expect(w.resume('a', 0)).toEqual({ kind: 'replay', events: [expect.objectContaining({ seq: 1 })] });
  });
});

describe('SSE format', () => {
  it('writes id, event and one data line, and keeps line breaks out of event names and comments', () => {
    expect(sseMessage('e.1', 'interaction.assigned', '{"a":1}')).toBe(
      'id: e.1\nevent: interaction.assigned\ndata: {"a":1}\n\n',
    );
    expect(sseMessage('e.1', 'x\ny', '{}')).toBe('id: e.1\nevent: x y\ndata: {}\n\n');
    expect(sseComment('heart\nbeat')).toBe(': heart beat\n\n');
  });
});
