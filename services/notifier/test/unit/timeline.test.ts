import { isSlow, timelineView } from '../../src/domain/timeline';

describe('the slow-delivery timeline', () => {
  const t0 = Date.parse('2026-11-26T14:00:00.000Z');

  it('shows each step as milliseconds from the event, so the log tells where the time went', () => {
    const t = {
      eventAt: t0,
      acceptedAt: t0 + 8,
      recordedAt: t0 + 20,
      queuedAt: t0 + 30_010,
      sentAt: t0 + 30_011,
      answeredAt: t0 + 30_040,
    };
    expect(isSlow(t, t0 + 30_050, 1000)).toBe(true);
    expect(timelineView(t, t0 + 30_050)).toEqual({
      from: 'event',
      fromAt: '2026-11-26T14:00:00.000Z',
      totalMs: 30_050,
      consumedMs: 8,
      recordedMs: 20,
      queuedMs: 30_010,
      attemptStartMs: 30_011,
      attemptEndMs: 30_040,
      outcomeWrittenMs: 30_050,
    });
  });

  it('counts from acceptance when the event time is unknown, and is off at 0', () => {
    const t = { eventAt: null, acceptedAt: t0 };
    expect(isSlow(t, t0 + 999, 1000)).toBe(false);
    expect(isSlow(t, t0 + 1001, 1000)).toBe(true);
    expect(isSlow(t, t0 + 60_000, 0)).toBe(false);
    expect(timelineView(t, t0 + 5)).toMatchObject({
      from: 'accepted',
      totalMs: 5,
      queuedMs: null,
      attemptStartMs: null,
    });
  });
});
