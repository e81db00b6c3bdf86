import { eventually } from '@cc/testing';
import type { AgentSync } from '../../src/app/agent-sync';
import { AssignmentEngine } from '../../src/app/assignment-engine';
import type { RoutingContext } from '../../src/app/context';
import type { InteractionActions } from '../../src/app/interaction-actions';
import { never } from '../../src/store/account-lease.repository';
import { AccountMemory } from '../../src/store/account-memory';

/**
 * The engine's scheduling alone: leases that always grant (the store's part is covered by the integration
 * tests) and passes the test holds open, to see which passes run side by side.
 */
class HeldEngine extends AssignmentEngine {
  readonly started: string[] = [];
  readonly open = new Map<string, () => void>();
  override pass(accountId: string): Promise<number> {
    this.started.push(accountId);
    return new Promise((resolve) => this.open.set(accountId, () => resolve(never)));
  }
  finish(accountId: string): void {
    this.open.get(accountId)?.();
    this.open.delete(accountId);
  }
}

function engine(passConcurrency: number): HeldEngine {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const ctx = {
    settings: { passGapMs: 0, leaseMs: 10_000, sweepMs: 30_000, passConcurrency, instanceId: 'me' },
    logger: quiet,
    leases: {
      wake: async () => undefined,
      pending: async () => [],
      begin: async () => ({ previousOwner: 'me' }),
      renew: async () => ({ previousOwner: 'me' }),
      settle: async () => true,
      state: async () => null,
      releaseAll: async () => undefined,
    },
    memory: new AccountMemory(),
  } as unknown as RoutingContext;
  return new HeldEngine(ctx, {} as AgentSync, {} as InteractionActions);
}

describe('AssignmentEngine scheduling', () => {
  it("a slow pass of one account does not hold back another account's pass", async () => {
    const e = engine(4);
    e.start();
    await e.wake('busy');
    await eventually(() => e.started, { accept: (s) => s.includes('busy') });
    await e.wake('other');
    // 'busy' is still in its pass: 'other' starts anyway.
    await eventually(() => e.started, { accept: (s) => s.includes('other') });
    expect(e.open.has('busy')).toBe(true);
    e.finish('other');
    e.finish('busy');
    await e.stop();
  });

  it('one account never has two passes at once: a wake during its pass runs it again afterwards', async () => {
    const e = engine(4);
    e.start();
    await e.wake('a');
    await eventually(() => e.started, { accept: (s) => s.length === 1 });
    await e.wake('a');
    // 'b' is woken after 'a' again, so once 'b' has started, a second pass of 'a' would have too.
    await e.wake('b');
    await eventually(() => e.started, { accept: (s) => s.includes('b') });
    expect(e.started).toEqual(['a', 'b']);
    e.finish('b');
    e.finish('a');
    await eventually(() => e.started, { accept: (s) => s.length === 3 });
    expect(e.started).toEqual(['a', 'b', 'a']);
    e.finish('a');
    await e.stop();
  });

  it('at most passConcurrency passes run at once; the rest start as passes end', async () => {
    const e = engine(2);
    e.start();
    for (const id of ['a', 'b', 'c']) await e.wake(id);
    await eventually(() => e.started, { accept: (s) => s.length === 2 });
    expect(e.open.size).toBe(2);
    e.finish(e.started[0] as string);
    await eventually(() => e.started, { accept: (s) => s.length === 3 });
    for (const id of [...e.open.keys()]) e.finish(id);
    await e.stop();
  });
});
