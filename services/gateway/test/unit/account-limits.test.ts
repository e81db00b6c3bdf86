import { AccountLimits } from '../../src/identity/account-limits';
import type { AccountDoc } from '../../src/store/account.model';

// The account cache is a bounded LRU: past its size it forgets the least recently used account, not every account.
function countingRepo(overrides: Record<string, { rps: number; burst: number }>) {
  const reads: string[] = [];
  return {
    reads,
    repo: {
      get: async (accountId: string) => {
        reads.push(accountId);
        const rateLimit = overrides[accountId];
        return (rateLimit ? { accountId, rateLimit } : undefined) as AccountDoc | undefined;
      },
    },
  };
}

const defaults = { rps: 50, burst: 100 };

describe('AccountLimits', () => {
  it("answers an account's override, else the default, from one store read", async () => {
    const { reads, repo } = countingRepo({ a: { rps: 7, burst: 3 } });
    const limits = new AccountLimits(repo, defaults, 60_000);
    expect(await limits.of('a')).toEqual({ rps: 7, burst: 3 });
    expect(await limits.of('a')).toEqual({ rps: 7, burst: 3 });
    expect(await limits.of('unknown')).toEqual(defaults);
    expect(reads).toEqual(['a', 'unknown']);
  });

  it('evicts the least recently used account when full, keeping the others', async () => {
    const { reads, repo } = countingRepo({});
    const limits = new AccountLimits(repo, defaults, 60_000, 2);
    await limits.of('a');
    await limits.of('b');
    await limits.of('a'); // a is now the most recently used
    await limits.of('c'); // evicts b
    reads.length = 0;
    await limits.of('a');
    await limits.of('c');
    expect(reads).toEqual([]);
    await limits.of('b');
    expect(reads).toEqual(['b']);
  });

  it('reads the store every time when the cache is off (ttl 0)', async () => {
    const { reads, repo } = countingRepo({});
    const limits = new AccountLimits(repo, defaults, 0);
    await limits.of('a');
    await limits.of('a');
    expect(reads).toEqual(['a', 'a']);
  });
});
