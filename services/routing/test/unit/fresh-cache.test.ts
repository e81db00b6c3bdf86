import { FreshCache } from '../../src/store/fresh-cache';

describe('FreshCache', () => {
  it('keeps a value for freshMs after it was read, then forgets it', () => {
    const c = new FreshCache<string>(1000);
    c.set('a', 'v1', c.mark, 10_000);
    expect(c.get('a', 10_999)).toBe('v1');
    expect(c.get('a', 11_000)).toBeUndefined();
    // Forgotten for good: a later time does not bring it back.
    expect(c.get('a', 10_500)).toBeUndefined();
  });

  it('a drop forgets the key, and a read that began before the drop is not kept', () => {
    const c = new FreshCache<string>(1000);
    c.set('a', 'v1', c.mark, 0);
    const mark = c.mark; // a store read starts
    c.drop('a'); // this instance writes meanwhile
    c.set('a', 'stale', mark, 1);
    expect(c.get('a', 2)).toBeUndefined();
    c.set('a', 'v2', c.mark, 3);
    expect(c.get('a', 4)).toBe('v2');
  });

  it('freshMs 0 keeps nothing; past maxEntries the oldest read goes first', () => {
    const off = new FreshCache<string>(0);
    off.set('a', 'v', off.mark, 0);
    expect(off.get('a', 0)).toBeUndefined();
    const c = new FreshCache<string>(1000, 2);
    c.set('a', '1', c.mark, 0);
    c.set('b', '2', c.mark, 0);
    c.set('a', '1b', c.mark, 1); // refreshed: now the newest
    c.set('c', '3', c.mark, 2);
    expect([c.get('a', 3), c.get('b', 3), c.get('c', 3)]).toEqual(['1b', undefined, '3']);
  });
});

describe('FreshCache.load', () => {
  /** A store read the test finishes by hand, counting how many were started. */
  function reads<V>() {
    const started: { resolve: (v: V | undefined) => void; reject: (e: Error) => void }[] = [];
    const read = () =>
      new Promise<V | undefined>((resolve, reject) => {
        started.push({ resolve, reject });
      });
    return { started, read };
  }

  it('concurrent misses of one key share one read, and the value is kept', async () => {
    const c = new FreshCache<string>(60_000);
    const r = reads<string>();
    const all = Promise.all([c.load('a', r.read), c.load('a', r.read), c.load('a', r.read)]);
    await Promise.resolve();
    expect(r.started).toHaveLength(1);
    r.started[0]?.resolve('v1');
    expect(await all).toEqual(['v1', 'v1', 'v1']);
    expect(c.get('a')).toBe('v1');
    // Other keys are read on their own.
    const b = c.load('b', r.read);
    expect(r.started).toHaveLength(2);
    r.started[1]?.resolve('vb');
    expect(await b).toBe('vb');
  });

  it('with caching off (freshMs 0) every miss reads the store itself', async () => {
    const c = new FreshCache<string>(0);
    const r = reads<string>();
    const both = Promise.all([c.load('a', r.read), c.load('a', r.read)]);
    expect(r.started).toHaveLength(2);
    r.started[0]?.resolve('1');
    r.started[1]?.resolve('2');
    expect(await both).toEqual(['1', '2']);
    expect(c.get('a')).toBeUndefined();
  });

  it('a miss after a drop does not join a read that began before it', async () => {
    const c = new FreshCache<string>(60_000);
    const r = reads<string>();
    const before = c.load('a', r.read);
    c.drop('a'); // this instance wrote the value meanwhile
    const after = c.load('a', r.read);
    expect(r.started).toHaveLength(2);
    r.started[0]?.resolve('old');
    r.started[1]?.resolve('new');
    expect([await before, await after]).toEqual(['old', 'new']);
    expect(c.get('a')).toBe('new');
  });

  it('a caller that finds nothing (or not enough) in a shared read reads again itself', async () => {
    const c = new FreshCache<Set<string>>(60_000);
    const r = reads<Set<string>>();
    const first = c.load('skills', r.read);
    const needsY = c.load('skills', r.read, (s) => s.has('y'));
    const missing = new FreshCache<string>(60_000);
    const m = reads<string>();
    const m1 = missing.load('x', m.read);
    const m2 = missing.load('x', m.read);
    r.started[0]?.resolve(new Set(['x']));
    m.started[0]?.resolve(undefined);
    expect(await first).toEqual(new Set(['x']));
    await Promise.resolve();
    await Promise.resolve();
    // The shared read lacked 'y' (created elsewhere after that read began, say): a read of its own.
    expect(r.started).toHaveLength(2);
    r.started[1]?.resolve(new Set(['x', 'y']));
    expect(await needsY).toEqual(new Set(['x', 'y']));
    expect(await m1).toBeUndefined();
    await Promise.resolve();
    await Promise.resolve();
    expect(m.started).toHaveLength(2);
    m.started[1]?.resolve('created');
    expect(await m2).toBe('created');
  });

  it('a caller that reads again after a shared read keeps its value, though a drop came while it waited', async () => {
    const c = new FreshCache<string>(60_000);
    const r = reads<string>();
    const first = c.load('a', r.read);
    const second = c.load('a', r.read); // shares the first read
    c.drop('a');
    r.started[0]?.resolve(undefined); // not found
    expect(await first).toBeUndefined();
    await Promise.resolve();
    await Promise.resolve();
    expect(r.started).toHaveLength(2); // the second reads again, after the drop
    r.started[1]?.resolve('created');
    expect(await second).toBe('created');
    expect(c.get('a')).toBe('created');
  });

  it('a failed read fails its joiners and is not remembered', async () => {
    const c = new FreshCache<string>(60_000);
    const r = reads<string>();
    const a = c.load('a', r.read);
    const b = c.load('a', r.read);
    r.started[0]?.reject(new Error('store down'));
    await expect(a).rejects.toThrow('store down');
    await expect(b).rejects.toThrow('store down');
    const again = c.load('a', r.read);
    expect(r.started).toHaveLength(2);
    r.started[1]?.resolve('v');
    expect(await again).toBe('v');
  });
});
