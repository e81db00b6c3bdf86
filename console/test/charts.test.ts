import type { AgentSummary } from '@cc/contracts';
import { periodKey, type RevisionWatch, summaryBars, timeSplit, transcriptTurns, watchRevisions } from '../src/charts';

const summary = (agentId: string, timestamp: string, revision: number, connected: number): AgentSummary =>
  ({
    agentId,
    timestamp,
    revision,
    interactions: {
      handleTime: [
        { type: 'Ringing', totalTime: 10, inbound: 10, outbound: 0, internal: 0 },
        { type: 'Connected', totalTime: connected, inbound: connected, outbound: 0, internal: 0 },
      ],
      offered: [],
      actions: [],
    },
    presence: {
      states: [
        { type: 'Away', totalTime: 60, count: 1 },
        { type: 'Ready', totalTime: 840, count: 1 },
      ],
    },
  }) as unknown as AgentSummary;

describe('summaryBars', () => {
  it('stacks handle time and presence in a fixed order, per agent in time order, and marks revised buckets', () => {
    const bars = summaryBars(
      [
        summary('b', '2026-01-01T10:15:00.000Z', 1, 100),
        summary('a', '2026-01-01T10:15:00.000Z', 3, 200),
        summary('a', '2026-01-01T10:00:00.000Z', 1, 50),
      ],
      new Set(['a 2026-01-01T10:15:00.000Z']),
    );
    expect(bars.map((a) => [a.agentId, a.bars.map((b) => b.timestamp.slice(11, 16))])).toEqual([
      ['a', ['10:00', '10:15']],
      ['b', ['10:15']],
    ]);
    const late = bars[0]?.bars[1];
    expect(late?.revised).toBe(true);
    expect(bars[0]?.bars[0]?.revised).toBe(false);
    expect(late?.handle.map((s) => [s.label, s.from, s.seconds])).toEqual([
      ['Ringing', 0, 10],
      ['Connected', 10, 200],
      ['HeldExternalParty', 210, 0],
      ['Wrap', 210, 0],
    ]);
    expect(late?.presence.slice(0, 2).map((s) => [s.label, s.from, s.seconds])).toEqual([
      ['Ready', 0, 840],
      ['Away', 840, 60],
    ]);
  });
});

describe('watchRevisions', () => {
  it('marks a period revised by late data only when it had ended before the previous fetch and its revision grew', () => {
    const watch: RevisionWatch = { seen: new Map(), late: new Set() };
    const ended = summary('a', '2026-01-01T10:00:00.000Z', 4, 10);
    const running = summary('a', '2026-01-01T10:15:00.000Z', 2, 10);
    watchRevisions(watch, [ended, running], '2026-01-01T10:20:00.000Z');
    expect(watch.late.size).toBe(0);
    // Later: the running period grew (normal), the ended one grew (late event), and an ended one appeared.
    const appeared = summary('b', '2026-01-01T10:00:00.000Z', 1, 10);
    watchRevisions(
      watch,
      [{ ...ended, revision: 5 }, { ...running, revision: 9 }, appeared],
      '2026-01-01T10:40:00.000Z',
    );
    expect([...watch.late].sort()).toEqual([periodKey(ended), periodKey(appeared)]);
    // The period that was running at the previous fetch and grows again after it ended is late too.
    watchRevisions(watch, [{ ...running, revision: 10 }], '2026-01-01T10:50:00.000Z');
    expect(watch.late.has(periodKey(running))).toBe(true);
  });
});

describe('timeSplit', () => {
  it('gives shares of the total, largest first, and nothing for an empty call', () => {
    expect(timeSplit({ agent: 30, customer: 60, silence: 10, crossTalk: 0 })).toEqual([
      { label: 'customer', seconds: 60, share: 0.6 },
      { label: 'agent', seconds: 30, share: 0.3 },
      { label: 'silence', seconds: 10, share: 0.1 },
      { label: 'crossTalk', seconds: 0, share: 0 },
    ]);
    expect(timeSplit({ agent: 0 })).toEqual([]);
  });
});

describe('transcriptTurns', () => {
  it('splits the text form of a transcript by speaker', () => {
    expect(transcriptTurns('Agent: Hello, how can I help? Customer: I would like a refund. Agent: Sure.')).toEqual([
      { speaker: 'Agent', text: 'Hello, how can I help?' },
      { speaker: 'Customer', text: 'I would like a refund.' },
      { speaker: 'Agent', text: 'Sure.' },
    ]);
    expect(
      transcriptTurns(
        '[00:00.8 Agent] thank you for calling\n[00:04.8 Customer] i would like to cancel\n[01:09.4 Agent] sure',
      ),
    ).toEqual([
      { speaker: 'Agent', at: '00:00.8', text: 'thank you for calling' },
      { speaker: 'Customer', at: '00:04.8', text: 'i would like to cancel' },
      { speaker: 'Agent', at: '01:09.4', text: 'sure' },
    ]);
    expect(transcriptTurns('hello there')).toEqual([{ speaker: 'Unknown', text: 'hello there' }]);
    expect(transcriptTurns(null)).toEqual([]);
  });
});
