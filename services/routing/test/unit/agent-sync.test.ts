import { AgentSync } from '../../src/app/agent-sync';
import type { RoutingContext } from '../../src/app/context';
import { changePresence, reserve } from '../../src/domain/agent';
import type { AgentRecord, InteractionRecord, Leg } from '../../src/domain/types';
import { agentRecord } from '../builders/routing.builders';

/**
 * AgentSync's merging of concurrent requests for one agent, on in-memory stand-ins of the two repositories
 * (the conditional writes themselves are the integration tests' part): the test holds the first agent write
 * open, so later requests queue behind it.
 */
type Slim = Pick<InteractionRecord, 'interactionId' | 'type' | 'medium' | 'legs'>;

const x = 'i0000000-0000-4000-8000-00000000000a';
const y = 'i0000000-0000-4000-8000-00000000000b';
const channel = (i: string) => `c${i.slice(1)}`;
const offer = (i: string) => `o${i.slice(1)}`;

function leg(agentId: string, interactionId: string, timeline: Leg['timeline']): Leg {
  return {
    channelId: channel(interactionId),
    offerId: offer(interactionId),
    agentId,
    agentUsername: 'jane',
    timeline,
    done: false,
  };
}

function setup() {
  const ready = changePresence(
    agentRecord({ capacity: { calls: 1, semiLive: 2, nonLive: 5 } }),
    'Ready',
    null,
    1_000,
  ).next;
  // The agent holds a ringing reservation of X; Y has a leg for the agent that its work list does not know yet.
  let stored: AgentRecord = reserve(
    ready,
    { interactionId: x, type: 'nonlive', medium: 'Email' },
    { offerId: offer(x), channelId: channel(x) },
    5_000,
  ).next;
  const agentId = stored.agentId;
  const interactions = new Map<string, Slim>([
    [
      x,
      {
        interactionId: x,
        type: 'nonlive',
        medium: 'Email',
        legs: [
          leg(agentId, x, [
            { kind: 'start', segment: 'Ringing', at: 5_000 },
            { kind: 'end', segment: 'Ringing', at: 6_000, outcome: 'Answered' },
            { kind: 'start', segment: 'Connected', at: 6_000 },
          ]),
        ],
      },
    ],
    [
      y,
      {
        interactionId: y,
        type: 'nonlive',
        medium: 'Email',
        legs: [leg(agentId, y, [{ kind: 'start', segment: 'Ringing', at: 7_000 }])],
      },
    ],
  ]);
  const calls = { get: 0, save: 0, read: [] as string[] };
  let hold: (() => void) | undefined;
  const held = new Promise<void>((resolve) => {
    hold = resolve;
  });
  const ctx = {
    settings: { reserveGraceMs: 60_000, missedOffersAway: 3 },
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    publisher: { soon: async () => undefined },
    waker: { wake: async () => undefined },
    agents: {
      outboxModel: {},
      get: async () => {
        calls.get++;
        return stored;
      },
      save: async (next: AgentRecord, expected: number) => {
        calls.save++;
        if (calls.save === 1) await held;
        if (stored.version !== expected) return null;
        stored = next;
        return { entries: [], seq: 0 };
      },
    },
    interactions: {
      legsOf: async (_account: string, ids: string[]) => {
        calls.read.push(...ids);
        return ids.flatMap((id) => (interactions.has(id) ? [interactions.get(id) as Slim] : []));
      },
    },
  } as unknown as RoutingContext;
  return { sync: new AgentSync(ctx), agentId, calls, release: () => hold?.(), stored: () => stored };
}

describe('AgentSync', () => {
  it('serves requests that arrive during a reconciliation with one more, from the agent it wrote', async () => {
    const s = setup();
    const first = s.sync.sync('acme', s.agentId, { only: [x] });
    await new Promise((r) => setImmediate(r));
    // Both arrive while the first write is in flight: one scoped to Y, one unscoped.
    const second = s.sync.sync('acme', s.agentId, { only: [y] });
    const third = s.sync.sync('acme', s.agentId, {});
    s.release();
    await Promise.all([first, second, third]);
    // One read of the agent (the merged reconciliation starts from the agent the first one wrote), two writes.
    expect(s.calls.get).toBe(1);
    expect(s.calls.save).toBe(2);
    const work = s.stored().work;
    // X's milestones announced by the first; Y's leg adopted by the merged one although the unscoped request
    // alone would read only the work list (which did not hold Y).
    expect(work.find((w) => w.interactionId === x)?.cursor).toBe(3);
    expect(work.map((w) => w.interactionId).sort()).toEqual([x, y]);
  });

  it('a request scoped to one interaction reads no other', async () => {
    const s = setup();
    s.release();
    await s.sync.sync('acme', s.agentId, { only: [y] });
    expect(s.calls.read).toEqual([y]);
    expect(s.stored().work.find((w) => w.interactionId === x)?.cursor).toBe(1);
  });
});
