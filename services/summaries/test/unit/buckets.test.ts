import { ms } from '../../src/domain/activity';
import { contributionsOf, periodOf, toSummaryItem } from '../../src/domain/buckets';
import { t } from '../builders/activity.builders';

describe('15-minute periods in UTC', () => {
  it('start on the hour, quarter past, half past and quarter to', () => {
    expect(new Date(periodOf(t('2026-03-29T01:14:59.999Z'))).toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(new Date(periodOf(t('2026-03-29T01:15:00.000Z'))).toISOString()).toBe('2026-03-29T01:15:00.000Z');
    expect(new Date(periodOf(t('2026-03-29T01:59:00.000Z'))).toISOString()).toBe('2026-03-29T01:45:00.000Z');
  });

  it('are 15 minutes across a European DST change (UTC has none): 00:45 to 02:15 UTC is six periods', () => {
    const shares = contributionsOf(
      { kind: 'presence', key: 'p', state: 'Ready', start: t('2026-03-29T00:45:00Z'), end: t('2026-03-29T02:15:00Z') },
      0,
    );
    expect([...shares.values()].map((c) => c['ps|Ready|t'])).toEqual(Array(6).fill(900_000));
  });
});

describe('contributions of one interval', () => {
  it('splits time at each boundary and counts the entry in the period it started', () => {
    const shares = contributionsOf(
      { kind: 'presence', key: 'p', state: 'Away', start: t('2026-01-01T10:10:00Z'), end: t('2026-01-01T10:20:30Z') },
      0,
    );
    expect(Object.fromEntries([...shares].map(([p, c]) => [new Date(p).toISOString(), c]))).toEqual({
      '2026-01-01T10:00:00.000Z': { 'ps|Away|t': 300_000, 'ps|Away|n': 1 },
      '2026-01-01T10:15:00.000Z': { 'ps|Away|t': 330_000 },
    });
  });

  it('counts an open interval up to openUntil, across many periods', () => {
    const shares = contributionsOf(
      {
        kind: 'segment',
        key: 's',
        segment: 'Connected',
        dir: 'outbound',
        start: t('2026-01-01T10:05:00Z'),
        end: null,
        outcome: null,
      },
      t('2026-01-01T12:07:00Z'),
    );
    expect(shares.size).toBe(9);
    expect(shares.get(t('2026-01-01T10:00:00Z'))).toEqual({ 'ht|Connected|outbound': 600_000 });
    expect(shares.get(t('2026-01-01T11:00:00Z'))).toEqual({ 'ht|Connected|outbound': 900_000 });
    expect(shares.get(t('2026-01-01T12:00:00Z'))).toEqual({ 'ht|Connected|outbound': 420_000 });
  });

  it('writes only periods from fromPeriod on (an open interval already written before)', () => {
    const shares = contributionsOf(
      { kind: 'presence', key: 'p', state: 'Ready', start: t('2026-01-01T10:05:00Z'), end: null },
      t('2026-01-01T10:40:00Z'),
      t('2026-01-01T10:15:00Z'),
    );
    expect(Object.fromEntries([...shares].map(([p, c]) => [new Date(p).toISOString().slice(11, 16), c]))).toEqual({
      '10:15': { 'ps|Ready|t': 900_000 },
      '10:30': { 'ps|Ready|t': 600_000 },
    });
  });

  it('counts LoggedOut time only in the periods of logging out and back in', () => {
    const shares = contributionsOf(
      {
        kind: 'presence',
        key: 'p',
        state: 'LoggedOut',
        start: t('2026-01-01T10:10:00Z'),
        end: t('2026-01-01T11:05:00Z'),
      },
      0,
    );
    expect([...shares.keys()]).toEqual([t('2026-01-01T10:00:00Z'), t('2026-01-01T11:00:00Z')]);
    expect(shares.get(t('2026-01-01T11:00:00Z'))).toEqual({ 'ps|LoggedOut|t': 300_000 });
  });

  it('counts a hold once where it started and an offer outcome where the ring ended', () => {
    const hold = contributionsOf(
      {
        kind: 'segment',
        key: 'h',
        segment: 'HeldExternalParty',
        dir: 'inbound',
        start: t('2026-01-01T10:14:00Z'),
        end: t('2026-01-01T10:16:00Z'),
        outcome: null,
      },
      0,
    );
    expect(hold.get(t('2026-01-01T10:00:00Z'))).toEqual({
      'ht|HeldExternalParty|inbound': 60_000,
      'ac|HoldExternalParty|inbound': 1,
    });
    const ring = contributionsOf(
      {
        kind: 'segment',
        key: 'r',
        segment: 'Ringing',
        dir: 'inbound',
        start: t('2026-01-01T10:14:50Z'),
        end: t('2026-01-01T10:15:10Z'),
        outcome: 'Unexpected',
      },
      0,
    );
    expect(ring.get(t('2026-01-01T10:15:00Z'))).toEqual({ 'ht|Ringing|inbound': 10_000, 'of|Unexpected|inbound': 1 });
  });
});

describe('the Agent Summary item', () => {
  it('is in whole seconds, rounded down, with every handleTime and offered type', () => {
    const item = toSummaryItem(
      'a1',
      t('2026-01-01T10:00:00Z'),
      {
        'ht|Connected|inbound': 61_999,
        'ht|Connected|outbound': 1_500,
        'ht|HeldExternalParty|inbound': 10_000,
        'of|Answered|inbound': 2,
        'ps|Ready|t': 899_999,
        'ps|Ready|n': 1,
      },
      3,
    );
    expect(item).toEqual({
      agentId: 'a1',
      timestamp: '2026-01-01T10:00:00.000Z',
      revision: 3,
      interactions: {
        handleTime: [
          { type: 'Ringing', totalTime: 0, inbound: 0, outbound: 0, internal: 0 },
          { type: 'Connected', totalTime: 63, inbound: 61, outbound: 1, internal: 0 },
          { type: 'Wrap', totalTime: 0, inbound: 0, outbound: 0, internal: 0 },
          { type: 'HeldExternalParty', totalTime: 10, inbound: 10, outbound: 0, internal: 0 },
        ],
        offered: [
          { type: 'Answered', count: 2, inbound: 2, outbound: 0, internal: 0 },
          { type: 'Unexpected', count: 0, inbound: 0, outbound: 0, internal: 0 },
          { type: 'Failed', count: 0, inbound: 0, outbound: 0, internal: 0 },
        ],
        actions: [],
      },
      presence: { states: [{ type: 'Ready', totalTime: 899, count: 1 }] },
    });
  });
});

describe('event times', () => {
  it("reads the events' own shape as Date.parse does, and any other shape with Date.parse", () => {
    const samples = [
      '2024-05-01T08:15:00.000Z',
      '2024-02-29T23:59:59.999Z',
      '1999-12-31T00:00:00.001Z',
      '2026-03-29T01:30:00.000Z',
      '2024-05-01T08:15:00Z',
      '2024-05-01T10:15:00.000+02:00',
      '2024-05-01T08:15:00.123456Z',
    ];
    for (const s of samples) expect([s, ms(s)]).toEqual([s, Date.parse(s)]);
    for (let t = Date.UTC(2020, 0, 1); t < Date.UTC(2029, 0, 1); t += 7_777_777_777)
      expect(ms(new Date(t).toISOString())).toBe(t);
  });
});
