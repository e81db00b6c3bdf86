import {
  type ActivityItem,
  type AgentActivityEvent,
  activityKey,
  activityWrites,
} from '../../src/domain/agent-activity';
import { hourMs, hourOf } from '../../src/domain/time';
import {
  ActivityRound,
  ChunkRows,
  decodeActivityChunk,
  encodeActivityChunk,
  mergeActivityChunks,
  type StoredActivity,
} from '../../src/store/activity-chunk.codec';
import { agentActivityScript } from '../builders/agent-activity-events';

const hour = hourOf(Date.parse('2024-05-01T08:00:00Z'));
const at = (minute: number) => hour * hourMs + minute * 60_000 + 123;
const agent = (n: number) => `aaaaaaaa-aaaa-4aaa-8aaa-${String(n).padStart(12, '0')}`;
const none = {
  category: null,
  name: null,
  eligibleForRouting: null,
  status: null,
  reason: null,
  interaction: null,
  channel: null,
  workload: null,
};

const presence = (n: number, minute: number, end: number | null, extra: Partial<ActivityItem> = {}): ActivityItem => ({
  ...none,
  agentId: agent(n),
  type: 'Presence',
  category: 'Away',
  name: 'Away',
  eligibleForRouting: false,
  reason: 'Break',
  start: at(minute),
  end,
  ...extra,
});
const workload = (n: number, minute: number, end: number | null): ActivityItem => ({
  ...none,
  agentId: agent(n),
  type: 'Workload',
  workload: { calls: 1, semiLive: 2, nonLive: 3 },
  start: at(minute),
  end,
});
const segment = (n: number, minute: number, end: number | null, extra: Partial<ActivityItem> = {}): ActivityItem => ({
  ...none,
  agentId: agent(n),
  type: 'Interaction',
  category: 'Connected',
  status: end === null ? 'InProgress' : 'Completed',
  interaction: { guid: 'i-1', medium: 'Phone', mediumManager: 'CC', direction: 'Inbound' },
  channel: { guid: 'ch-1' },
  start: at(minute),
  end,
  ...extra,
});

describe('activity chunk codec', () => {
  it('round-trips every layout, and items that fit none whole', () => {
    const closed: ActivityItem[] = [
      presence(1, 0, at(10)),
      presence(2, 1, at(2), { name: 'Lunch', eligibleForRouting: null, reason: null, category: 'Away' }),
      presence(3, 2, at(3), { eligibleForRouting: true, category: null, name: null }),
      workload(1, 3, at(4)),
      segment(2, 4, at(5)),
      segment(3, 5, at(6), { interaction: null, channel: null, category: 'Wrap' }),
      segment(4, 6, at(7), { channel: { guid: null } }), // fits no layout: stored whole
      presence(5, 7, at(8), { status: 'odd' }), // fits no layout: stored whole
      { ...workload(6, 8, at(9)), reason: 'odd' }, // fits no layout: stored whole
    ];
    const open: ActivityItem[] = [presence(1, 10, null), workload(2, 11, null), segment(2, 12, null)];
    const decoded = decodeActivityChunk(encodeActivityChunk(hour, closed, open, 42));
    expect(decoded.c).toEqual(closed.map((i) => ({ ...i, updatedAt: 42 })));
    expect(decoded.o).toEqual(open.map((i) => ({ ...i, updatedAt: 42 })));
    expect(decoded.cKeys).toBeUndefined();
  });

  it('keeps each item its own update time when none is given', () => {
    const items: StoredActivity[] = [
      { ...presence(1, 0, at(1)), updatedAt: 1000 },
      { ...workload(1, 1, null), updatedAt: 500 },
    ];
    const decoded = decodeActivityChunk(encodeActivityChunk(hour, items.slice(0, 1), items.slice(1)));
    expect(decoded.c).toEqual(items.slice(0, 1));
    expect(decoded.o).toEqual(items.slice(1));
  });

  it('is much smaller than the keyed objects it replaces', () => {
    const items = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 0
        ? presence(i % 50, i % 60, at(59))
        : i % 3 === 1
          ? workload(i % 50, i % 60, null)
          : segment(i, i % 60, null),
    );
    const v1 = JSON.stringify({ c: Object.fromEntries(items.map((i) => [activityKey(i), { ...i, updatedAt: 42 }])) });
    expect(encodeActivityChunk(hour, items, [], 42).length).toBeLessThan(v1.length / 3);
  });

  it('merges chunks in version order: the latest of a key wins, a finished activity beats its running form', () => {
    const first = encodeActivityChunk(hour, [presence(1, 0, at(5))], [presence(1, 5, null), workload(2, 6, null)], 1);
    const second = encodeActivityChunk(hour, [presence(1, 0, at(6)), presence(1, 5, at(9))], [], 2);
    const merged = mergeActivityChunks([first, second]);
    expect(merged.c).toEqual([
      { ...presence(1, 0, at(6)), updatedAt: 2 },
      { ...presence(1, 5, at(9)), updatedAt: 2 },
    ]);
    expect(merged.o).toEqual([{ ...workload(2, 6, null), updatedAt: 1 }]);
    expect(merged.cKeys).toEqual(merged.c.map(activityKey));
  });

  it('reads version 1 chunks (items by natural key) and merges them with version 2 ones', () => {
    const old = presence(1, 0, null);
    const v1 = JSON.stringify({ c: {}, o: { [activityKey(old)]: { ...old, updatedAt: 1 } } });
    expect(decodeActivityChunk(v1)).toEqual({
      c: [],
      o: [{ ...old, updatedAt: 1 }],
      cKeys: [],
      oKeys: [activityKey(old)],
    });
    const merged = mergeActivityChunks([v1, encodeActivityChunk(hour, [presence(1, 0, at(3))], [], 2)]);
    expect(merged.c).toEqual([{ ...presence(1, 0, at(3)), updatedAt: 2 }]);
    expect(merged.o).toEqual([]);
  });

  it("builds a write round's chunk: the latest write of each natural key, a finished activity beating its running form", () => {
    const rows = new ChunkRows(hour);
    rows.add('open', presence(1, 0, null));
    rows.add('closed', presence(1, 0, at(5))); // finishes it
    rows.add('open', presence(1, 0, null)); // a late running form: the finished one stays
    rows.add('closed', workload(1, 1, at(2)));
    rows.add('closed', workload(1, 1, at(3))); // a later version of the same activity
    rows.add('open', segment(2, 2, null));
    rows.add('open', segment(2, 2, null, { channel: { guid: 'ch-2' } })); // another channel: another activity
    rows.add('open', segment(2, 2, null, { category: 'Wrap' })); // another segment: another activity
    expect(rows.size).toBe(5);
    expect([...rows.ended.keys()]).toEqual([hour]);
    const decoded = decodeActivityChunk(rows.encode(7));
    expect(decoded.c).toEqual([
      { ...presence(1, 0, at(5)), updatedAt: 7 },
      { ...workload(1, 1, at(3)), updatedAt: 7 },
    ]);
    expect(decoded.o).toEqual([
      { ...segment(2, 2, null), updatedAt: 7 },
      { ...segment(2, 2, null, { channel: { guid: 'ch-2' } }), updatedAt: 7 },
      { ...segment(2, 2, null, { category: 'Wrap' }), updatedAt: 7 },
    ]);
  });
});

describe('a write round built straight from the events', () => {
  const presenceEvent = (
    occurredAt: string,
    previous: Record<string, unknown> | null,
    reason: string | null = null,
  ) => ({
    type: 'agent-activity.presence-changed',
    data: { agentId: agent(3), occurredAt, presence: 'Away', eligibleForRouting: false, reason, previous },
  });
  const events = [
    ...agentActivityScript(),
    presenceEvent('2024-05-01T08:10:00.250Z', {
      presence: 'Ready',
      eligibleForRouting: true,
      reason: 'back',
      startedAt: '2024-05-01T07:59:00.000Z',
      durationMs: 660_250,
    }),
    // Another time shape (an offset, no milliseconds), a reason left out of the previous state.
    presenceEvent(
      '2024-05-01T10:20:00+02:00',
      { presence: 'Away', eligibleForRouting: false, startedAt: '2024-05-01T08:10:00.250Z', durationMs: 599_750 },
      'lunch',
    ),
    // HeldExternalParty runs inside Connected: no activity of its own.
    ...agentActivityScript()
      .filter((e) => e.type.startsWith('agent-activity.segment-'))
      .map((e) => ({ ...e, data: { ...e.data, segment: 'HeldExternalParty' } })),
    // No status: a finished segment is Completed.
    ...agentActivityScript()
      .filter((e) => e.type === 'agent-activity.segment-ended')
      .map((e) => ({ ...e, data: { ...e.data, status: undefined, channel: { guid: 'ch-other' } } })),
  ] as AgentActivityEvent[];

  it('holds the same rows as the round built from the items of `activityWrites`', () => {
    const direct = new ActivityRound();
    const viaItems = new ActivityRound();
    for (const [n, e] of events.entries()) {
      const account = n % 2 ? 'acc-1' : 'acc-2';
      direct.addEvent(account, e);
      for (const w of activityWrites(e)) viaItems.add(account, w.kind, w.hour, w.item);
    }
    expect(direct.writes).toBe(viaItems.writes);
    expect(direct.writes).toBe(19);
    const chunks = (round: ActivityRound) =>
      [...round.accounts].flatMap(([account, hours]) =>
        [...hours].map(([h, rows]) => ({
          account,
          h,
          size: rows.size,
          ended: [...rows.ended.keys()],
          data: rows.encode(7),
        })),
      );
    expect(chunks(direct)).toEqual(chunks(viaItems));
    expect(chunks(direct).length).toBeGreaterThan(2);
  });
});
