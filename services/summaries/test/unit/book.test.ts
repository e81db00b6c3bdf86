import { SummaryBook } from '../../src/domain/book';
import { AgentEvents, t } from '../builders/activity.builders';

const acc = 'acc-1';
const all = { from: t('2026-01-01T00:00:00Z'), to: t('2026-01-02T00:00:00Z'), page: 1, limit: 100 };

/** A shift: log in 10:02 Ready, an answered call with a hold and wrap, a missed offer, Away, log out. */
function shift(a: AgentEvents) {
  return [
    a.presence('2026-01-01T10:02:00.000Z', 'Ready'),
    a.segmentStarted('2026-01-01T10:05:00.000Z', 'Ringing', 'c1'),
    a.segmentEnded('2026-01-01T10:05:00.000Z', '2026-01-01T10:05:10.000Z', 'Ringing', 'c1', 'Answered'),
    a.segmentStarted('2026-01-01T10:05:10.000Z', 'Connected', 'c1'),
    a.segmentStarted('2026-01-01T10:13:00.000Z', 'HeldExternalParty', 'c1'),
    a.segmentEnded('2026-01-01T10:13:00.000Z', '2026-01-01T10:16:00.000Z', 'HeldExternalParty', 'c1'),
    a.segmentEnded('2026-01-01T10:05:10.000Z', '2026-01-01T10:20:00.000Z', 'Connected', 'c1'),
    a.segmentStarted('2026-01-01T10:20:00.000Z', 'Wrap', 'c1'),
    a.segmentEnded('2026-01-01T10:20:00.000Z', '2026-01-01T10:21:00.000Z', 'Wrap', 'c1'),
    a.segmentStarted('2026-01-01T10:25:00.000Z', 'Ringing', 'c2', 'Outbound'),
    a.segmentEnded('2026-01-01T10:25:00.000Z', '2026-01-01T10:25:30.000Z', 'Ringing', 'c2', 'Unexpected', 'Outbound'),
    a.presence('2026-01-01T10:25:30.000Z', 'Away', { presence: 'Ready', since: '2026-01-01T10:02:00.000Z' }),
    a.presence('2026-01-01T10:40:00.000Z', 'LoggedOut', { presence: 'Away', since: '2026-01-01T10:25:30.000Z' }),
  ];
}

const compact = (book: SummaryBook) =>
  book.query(acc, all).items.map((i) => ({
    at: i.timestamp.slice(11, 16),
    ht: Object.fromEntries(i.interactions.handleTime.filter((h) => h.totalTime).map((h) => [h.type, h.totalTime])),
    offered: Object.fromEntries(i.interactions.offered.filter((o) => o.count).map((o) => [o.type, o.count])),
    holds: i.interactions.actions[0]?.count ?? 0,
    presence: Object.fromEntries(i.presence.states.map((s) => [s.type, [s.totalTime, s.count]])),
  }));

const expected = [
  { at: '10:30', ht: {}, offered: {}, holds: 0, presence: { Away: [600, 0], LoggedOut: [300, 1] } },
  {
    at: '10:15',
    ht: { Ringing: 30, Connected: 300, Wrap: 60, HeldExternalParty: 60 },
    offered: { Unexpected: 1 },
    holds: 0,
    presence: { Ready: [630, 0], Away: [270, 1] },
  },
  {
    at: '10:00',
    ht: { Ringing: 10, Connected: 590, HeldExternalParty: 120 },
    offered: { Answered: 1 },
    holds: 1,
    presence: { Ready: [780, 1] },
  },
];

describe('SummaryBook', () => {
  it('aggregates a shift into 15-minute buckets, newest first', () => {
    const book = new SummaryBook();
    for (const e of shift(new AgentEvents('agent-1'))) book.apply(acc, e, 1);
    // The agent is still LoggedOut at 10:40: a later upTo adds nothing to periods spent wholly logged out.
    book.materialize(acc, t('2026-01-01T12:00:00Z'));
    expect(compact(book)).toEqual(expected);
  });

  it('gives the same buckets for events in any order, applied twice', () => {
    const book = new SummaryBook();
    const events = shift(new AgentEvents('agent-1'));
    const shuffled = [...events].reverse();
    for (const e of [...shuffled, ...events, events[3], events[0]]) book.apply(acc, e as never, 1);
    book.materialize(acc, t('2026-01-01T12:00:00Z'));
    expect(compact(book)).toEqual(expected);
  });

  it('counts an activity still open up to upTo, across many periods, and replaces it when it ends', () => {
    const book = new SummaryBook();
    const a = new AgentEvents('agent-1');
    book.apply(acc, a.presence('2026-01-01T08:10:00.000Z', 'Ready'), 1);
    book.materialize(acc, t('2026-01-01T09:05:00Z'));
    expect(book.query(acc, all).items.map((i) => [i.timestamp.slice(11, 16), i.presence.states])).toEqual([
      ['09:00', [{ type: 'Ready', totalTime: 300, count: 0 }]],
      ['08:45', [{ type: 'Ready', totalTime: 900, count: 0 }]],
      ['08:30', [{ type: 'Ready', totalTime: 900, count: 0 }]],
      ['08:15', [{ type: 'Ready', totalTime: 900, count: 0 }]],
      ['08:00', [{ type: 'Ready', totalTime: 300, count: 1 }]],
    ]);
    // A late event: the agent had gone Away at 08:40; time written past it is taken back, revisions bump.
    const before = book.query(acc, all).items.find((i) => i.timestamp.endsWith('08:45:00.000Z'))?.revision ?? 0;
    book.apply(
      acc,
      a.presence('2026-01-01T08:40:00.000Z', 'Away', { presence: 'Ready', since: '2026-01-01T08:10:00.000Z' }),
      2,
    );
    book.materialize(acc, t('2026-01-01T09:05:00Z'));
    const items = book.query(acc, all).items;
    expect(items.map((i) => [i.timestamp.slice(11, 16), i.presence.states])).toEqual([
      ['09:00', [{ type: 'Away', totalTime: 300, count: 0 }]],
      ['08:45', [{ type: 'Away', totalTime: 900, count: 0 }]],
      [
        '08:30',
        [
          { type: 'Ready', totalTime: 600, count: 0 },
          { type: 'Away', totalTime: 300, count: 1 },
        ],
      ],
      ['08:15', [{ type: 'Ready', totalTime: 900, count: 0 }]],
      ['08:00', [{ type: 'Ready', totalTime: 300, count: 1 }]],
    ]);
    const revised = items.find((i) => i.timestamp.endsWith('08:45:00.000Z'));
    expect(revised?.revision).toBeGreaterThan(before);
    expect(book.query(acc, { ...all, revisedSince: 2 }).items.map((i) => i.timestamp.slice(11, 16))).toEqual([
      '09:00',
      '08:45',
      '08:30',
    ]);
  });

  it('pages by period then agent id, filters by agent, and keeps accounts apart', () => {
    const book = new SummaryBook();
    for (const id of ['b', 'a', 'c']) {
      const a = new AgentEvents(id);
      book.apply(acc, a.presence('2026-01-01T10:00:00.000Z', 'Ready'), 1);
      book.apply(
        acc,
        a.presence('2026-01-01T10:20:00.000Z', 'Away', { presence: 'Ready', since: '2026-01-01T10:00:00.000Z' }),
        1,
      );
    }
    book.apply('other', new AgentEvents('z').presence('2026-01-01T10:00:00.000Z', 'Ready'), 1);
    const page = (page: number, limit: number) => book.query(acc, { ...all, page, limit });
    expect(page(1, 4).items.map((i) => `${i.timestamp.slice(11, 16)} ${i.agentId}`)).toEqual([
      '10:15 a',
      '10:15 b',
      '10:15 c',
      '10:00 a',
    ]);
    expect(page(2, 4)).toMatchObject({ total: 6, items: [{ agentId: 'b' }, { agentId: 'c' }] });
    expect(book.query(acc, { ...all, agentId: 'c' }).items.map((i) => i.agentId)).toEqual(['c', 'c']);
    expect(book.query(acc, { ...all, from: t('2026-01-01T10:20:00Z') }).total).toBe(3);
    expect(book.query('nobody', all)).toEqual({ items: [], total: 0 });
  });
});
