import { parseByteSize } from '../../src/domain/byte-size';
import { applyFlagsPatch, defaultFeatureFlags } from '../../src/domain/feature-flags';
import { burstWindowSeconds, checkRateLimit, effectiveRateLimit } from '../../src/domain/rate-limit-policy';
import { accessTokenClaims, v0TokenClaims } from '../../src/domain/token-claims';

describe('feature flags', () => {
  it('applies a patch and names only what changed', () => {
    expect(applyFlagsPatch(undefined, { agentSummaries: true })).toEqual({
      flags: { agentSummaries: true, conversationAnalysis: true, v0Statistics: true },
      changed: ['agentSummaries'],
    });
    expect(
      applyFlagsPatch({ ...defaultFeatureFlags, agentSummaries: true }, { agentSummaries: true, v0Statistics: false }),
    ).toEqual({
      flags: { agentSummaries: true, conversationAnalysis: true, v0Statistics: false },
      changed: ['v0Statistics'],
    });
    expect(applyFlagsPatch(defaultFeatureFlags, {}).changed).toEqual([]);
  });
});

describe('rate-limit policy', () => {
  it('uses the account override where it has one', () => {
    expect(effectiveRateLimit({ rps: 50, burst: 100 }, null)).toEqual({ rps: 50, burst: 100 });
    expect(effectiveRateLimit({ rps: 50, burst: 100 }, { rps: 5 })).toEqual({ rps: 5, burst: 100 });
    expect(effectiveRateLimit({ rps: 50, burst: 100 }, { rps: 5, burst: 0 })).toEqual({ rps: 5, burst: 0 });
  });

  it('refuses nonsense limits and computes the burst refill window', () => {
    expect(() => checkRateLimit({ rps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => checkRateLimit({ rps: 1.5, burst: 1 })).toThrow(RangeError);
    expect(() => checkRateLimit({ rps: 1, burst: -1 })).toThrow(RangeError);
    expect(burstWindowSeconds({ rps: 50, burst: 100 })).toBe(2);
    expect(burstWindowSeconds({ rps: 50, burst: 0 })).toBe(1);
    expect(burstWindowSeconds({ rps: 3, burst: 10 })).toBe(4);
  });
});

describe('byte sizes', () => {
  it('parses body-parser style sizes', () => {
    expect(parseByteSize('1mb')).toBe(1048576);
    expect(parseByteSize('512KB')).toBe(524288);
    expect(parseByteSize('2048')).toBe(2048);
    expect(parseByteSize('1.5kb')).toBe(1536);
    for (const bad of ['', 'lots', '0', '-1mb', '1tb']) expect(() => parseByteSize(bad)).toThrow(RangeError);
  });
});

describe('token claims', () => {
  it('API tokens carry the account, the client and exactly one scope; v0 tokens name the account key', () => {
    const a = accessTokenClaims({ accountId: 'acme', clientId: 'c1', scope: 'stats' });
    expect(a).toEqual({ sub: 'c1', client_id: 'c1', account_id: 'acme', scope: 'stats', jti: expect.any(String) });
    expect(accessTokenClaims({ accountId: 'acme', clientId: 'c1', scope: 'stats' }).jti).not.toBe(a.jti);
    expect(v0TokenClaims({ accountId: 'acme', accountKey: 'k1' })).toMatchObject({
      sub: 'k1',
      account_id: 'acme',
      scope: 'v0',
      cc_flavour: 'v0',
    });
  });
});
