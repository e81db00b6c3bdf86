import { Coalesced, GroupCommit } from '../../src/store/group-commit';

/** A write whose round trips the test answers by hand. */
function manualWrite() {
  const calls: { items: number[]; answer: (err?: Error) => void }[] = [];
  const write = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      calls.push({ items, answer: (err) => (err ? reject(err) : resolve(items.map((i) => `r${i}`))) });
    });
  return { calls, write };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('GroupCommit', () => {
  it('sends an idle call at once and gives each caller its own results, in order', async () => {
    const { calls, write } = manualWrite();
    const g = new GroupCommit(write, { maxItems: 50, maxInFlight: 1 });
    const a = g.add([1, 2]);
    const b = g.add([3]);
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1, 2, 3]]);
    calls[0]?.answer();
    expect(await a).toEqual(['r1', 'r2']);
    expect(await b).toEqual(['r3']);
  });

  it('callers arriving while a write is in flight share the next write', async () => {
    const { calls, write } = manualWrite();
    const g = new GroupCommit(write, { maxItems: 50, maxInFlight: 1 });
    const first = g.add([1]);
    await tick();
    const later = [g.add([2]), g.add([3, 4])];
    await tick();
    expect(calls).toHaveLength(1); // nothing sent while the first write is unanswered
    calls[0]?.answer();
    await first;
    await tick();
    expect(calls.map((c) => c.items)).toEqual([[1], [2, 3, 4]]);
    calls[1]?.answer();
    expect(await Promise.all(later)).toEqual([['r2'], ['r3', 'r4']]);
  });

  it('never sends more than maxItems in one write; a caller is split only when it alone exceeds it', async () => {
    const { calls, write } = manualWrite();
    const g = new GroupCommit(write, { maxItems: 3, maxInFlight: 4 });
    const a = g.add([1, 2]);
    const b = g.add([3, 4]);
    const c = g.add([5, 6, 7, 8]);
    await tick();
    expect(calls.map((x) => x.items)).toEqual([[1, 2], [3, 4], [5, 6, 7], [8]]);
    for (const x of calls) x.answer();
    expect(await Promise.all([a, b, c])).toEqual([
      ['r1', 'r2'],
      ['r3', 'r4'],
      ['r5', 'r6', 'r7', 'r8'],
    ]);
  });

  it('a failed write fails every caller in it, and later callers still get written', async () => {
    const { calls, write } = manualWrite();
    const g = new GroupCommit(write, { maxItems: 50, maxInFlight: 1 });
    const a = g.add([1]);
    const b = g.add([2]);
    await tick();
    calls[0]?.answer(new Error('store down'));
    await expect(a).rejects.toThrow('store down');
    await expect(b).rejects.toThrow('store down');
    const c = g.add([3]);
    await tick();
    calls[1]?.answer();
    expect(await c).toEqual(['r3']);
  });
});

describe('Coalesced', () => {
  it('callers before the write starts share it; a caller during the write gets a later one', async () => {
    const starts: (() => void)[] = [];
    const c = new Coalesced(() => new Promise<void>((r) => starts.push(r)));
    const a = c.run();
    const b = c.run();
    expect(a).toBe(b);
    await tick();
    expect(starts).toHaveLength(1);
    const d = c.run(); // the first write is running: d must not be satisfied by it
    starts[0]?.();
    await a;
    await tick();
    expect(starts).toHaveLength(2);
    expect(c.idle).toBe(false);
    starts[1]?.();
    await d;
    expect(c.idle).toBe(true);
  });
});
