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
