import { AppError } from '@cc/kit';
import {
  assertExternalIdsFree,
  canonicalJson,
  normalizeInvocation,
  planDedupe,
  type StoredOutcome,
} from '../../src/domain/invocation';

const stored = (over: Partial<StoredOutcome> = {}): StoredOutcome => ({
  requestId: 'r1',
  hash: 'h',
  status: 'done',
  action: 'dispatch',
  externalId: 'e1',
  interactionId: 'i1',
  outcome: 'queued',
  ...over,
});

describe('normalising an Invocation', () => {
  it('applies defaults and accepts both spellings of the ids', () => {
    const { provider, requests } = normalizeInvocation({
      requests: [
        { requestid: 'a', externalid: 'x', route: 'R' },
        { action: 'release', requestId: 'b', externalId: 'y' },
      ],
    });
    expect(provider).toBeNull();
    expect(requests[0]).toMatchObject({
      action: 'dispatch',
      requestId: 'a',
      externalId: 'x',
      type: 'nonlive',
      skills: [],
      personalQueue: null,
    });
    expect(requests[0]?.pointers).toEqual({
      requestId: '/requests/0/requestid',
      externalId: '/requests/0/externalid',
      route: '/requests/0/route',
    });
    expect(requests[1]).toMatchObject({ action: 'release', requestId: 'b', externalId: 'y', route: null });
    expect(requests[1]?.pointers.requestId).toBe('/requests/1/requestId');
  });

  it('maps skills: omitted expiryafter is mandatory (null)', () => {
    const { requests } = normalizeInvocation({
      requests: [{ route: 'R', routingdata: { skills: [{ name: 'A' }, { name: 'B', expiryafter: 0 }] } }],
    });
    expect(requests[0]?.skills).toEqual([
      { name: 'A', expiryafter: null },
      { name: 'B', expiryafter: 0 },
    ]);
  });

  it('equal bodies hash equally whatever the key order or spelling; the provider is part of the body', () => {
    const a = normalizeInvocation({
      provider: 'P',
      requests: [{ requestId: 'r', route: 'R', routingdata: { interactiontype: 'live', skills: [{ name: 'A' }] } }],
    });
    const b = normalizeInvocation({
      provider: 'P',
      requests: [{ routingdata: { skills: [{ name: 'A' }], interactiontype: 'live' }, route: 'R', requestid: 'r' }],
    });
    const c = normalizeInvocation({
      provider: 'Q',
      requests: [{ requestId: 'r', route: 'R', routingdata: { interactiontype: 'live', skills: [{ name: 'A' }] } }],
    });
    const d = normalizeInvocation({
      provider: 'P',
      requests: [{ requestId: 'r', route: 'R2', routingdata: { interactiontype: 'live', skills: [{ name: 'A' }] } }],
    });
    expect(a.requests[0]?.hash).toBe(b.requests[0]?.hash);
    expect(a.requests[0]?.hash).not.toBe(c.requests[0]?.hash);
    expect(a.requests[0]?.hash).not.toBe(d.requests[0]?.hash);
  });

  it('canonical JSON sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"z":1}]},"b":1}',
    );
  });
});

describe('requestId dedupe', () => {
  const norm = (requests: object[]) => normalizeInvocation({ requests: requests as never }).requests;

  it('objects without requestId are always processed', () => {
    expect(planDedupe(norm([{ route: 'R' }, { route: 'R' }]), new Map())).toEqual([
      { kind: 'process', resume: null },
      { kind: 'process', resume: null },
    ]);
  });

  it('a requestId seen earlier returns its stored outcome', () => {
    const reqs = norm([{ requestId: 'r1', route: 'R' }]);
    const prior = stored({ hash: reqs[0]?.hash as string });
    expect(planDedupe(reqs, new Map([['r1', prior]]))).toEqual([{ kind: 'stored', stored: prior }]);
  });

  it('a pending (crashed) claim with the same body is resumed', () => {
    const reqs = norm([{ requestId: 'r1', route: 'R' }]);
    const prior = stored({ hash: reqs[0]?.hash as string, status: 'pending', outcome: null });
    expect(planDedupe(reqs, new Map([['r1', prior]]))).toEqual([{ kind: 'process', resume: prior }]);
  });

  it('within one Invocation only the first object of a requestId is processed', () => {
    const plan = planDedupe(
      norm([{ requestId: 'r1', route: 'R' }, { route: 'R' }, { requestId: 'r1', route: 'R' }]),
      new Map(),
    );
    expect(plan).toEqual([
      { kind: 'process', resume: null },
      { kind: 'process', resume: null },
      { kind: 'same-as', index: 0 },
    ]);
  });

  it('the same requestId with a different body is a conflict naming every offending pointer', () => {
    const reqs = norm([
      { requestId: 'r1', route: 'Other' },
      { requestId: 'r2', route: 'R' },
      { requestid: 'r2', route: 'X' },
    ]);
    try {
      planDedupe(reqs, new Map([['r1', stored({ hash: 'different' })]]));
      throw new Error('expected a conflict');
    } catch (err) {
      expect((err as AppError).code).toBe('INVOKE.REQUEST_ID_CONFLICT');
      expect((err as AppError).errors).toEqual([
        { pointer: '/requests/0/requestId', message: 'requestId r1 was already used with a different body' },
        { pointer: '/requests/2/requestid', message: 'requestId r2 is used by request 1 with a different body' },
      ]);
    }
  });
});

describe('externalIds in use', () => {
  const key = (e: string) => `k:${e}`;
  const norm = (requests: object[]) => normalizeInvocation({ requests: requests as never }).requests;
  const process = (n: number) => Array.from({ length: n }, () => ({ kind: 'process' as const, resume: null }));

  it('a dispatch may not reuse the externalId of a live interaction', () => {
    const reqs = norm([{ externalId: 'e1', route: 'R' }]);
    expect(() => assertExternalIdsFree(reqs, process(1), new Set(['k:e1']), key)).toThrow(
      'externalId e1 already names a live interaction',
    );
  });

  it('nor two dispatches of one Invocation the same externalId', () => {
    const reqs = norm([
      { externalId: 'e1', route: 'R' },
      { externalId: 'e1', route: 'R' },
    ]);
    expect(() => assertExternalIdsFree(reqs, process(2), new Set(), key)).toThrow(AppError);
  });

  it('a release earlier in the same Invocation frees the externalId', () => {
    const reqs = norm([
      { action: 'release', externalId: 'e1' },
      { externalId: 'e1', route: 'R' },
    ]);
    expect(() => assertExternalIdsFree(reqs, process(2), new Set(['k:e1']), key)).not.toThrow();
  });

  it('duplicates and resumed claims are not checked again', () => {
    const reqs = norm([{ requestId: 'r', externalId: 'e1', route: 'R' }]);
    expect(() =>
      assertExternalIdsFree(reqs, [{ kind: 'process', resume: stored({ status: 'pending' }) }], new Set(['k:e1']), key),
    ).not.toThrow();
    expect(() =>
      assertExternalIdsFree(reqs, [{ kind: 'stored', stored: stored() }], new Set(['k:e1']), key),
    ).not.toThrow();
  });
});
