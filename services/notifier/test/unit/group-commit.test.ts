import { GroupCommit } from '../../src/workers/group-commit';

describe('GroupCommit', () => {
  it('writes the items added in one turn in one call, and the items added meanwhile in the next', async () => {
    const calls: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const gc = new GroupCommit<number>(async (items) => {
      calls.push(items);
      if (calls.length === 1) await gate;
    });
    const first = [gc.add(1), gc.add(2), gc.add(3)];
    await new Promise((r) => setImmediate(r));
    // The first write is in progress: these wait and share the next one.
    const second = [gc.add(4), gc.add(5)];
    release();
    await Promise.all([...first, ...second]);
    expect(calls).toEqual([
      [1, 2, 3],
      [4, 5],
    ]);
  });

  it('retries a failed write until it succeeds; the callers resolve once', async () => {
    let attempts = 0;
    const retries: number[] = [];
    const gc = new GroupCommit<string>(
      async () => {
        attempts++;
        if (attempts < 3) throw new Error('store down');
      },
      (_err, attempt) => retries.push(attempt),
    );
    await expect(gc.add('a')).resolves.toBeUndefined();
    expect(attempts).toBe(3);
    expect(retries).toEqual([1, 2]);
  });

  it('drain resolves when everything added so far is written; stop fails what still waits', async () => {
    const written: string[] = [];
    const gc = new GroupCommit<string>(async (items) => {
      written.push(...items);
    });
    void gc.add('x');
    void gc.add('y');
    await gc.drain();
    expect(written).toEqual(['x', 'y']);

    let retried: () => void = () => undefined;
    const firstRetry = new Promise<void>((r) => {
      retried = r;
    });
    const failing = new GroupCommit<string>(
      async () => {
        throw new Error('down');
      },
      () => retried(),
    );
    const waiting = failing.add('z');
    await firstRetry;
    failing.stop();
    await expect(waiting).rejects.toThrow('stopped');
  });
});
