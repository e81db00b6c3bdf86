import {
  admitToChain,
  leaveChain,
  planBreakerWait,
  refusalOf,
  type SendLimits,
  sendStep,
} from '../../src/domain/lane-plan';
import { compareDeliveries, type OpenDelivery } from '../../src/domain/ordering';

describe('refusalOf: whether anything can be sent to a provider', () => {
  it('an unknown provider is a retryable failure (its event may still be in flight)', () => {
    expect(refusalOf(undefined)).toEqual({ reason: expect.stringMatching(/not known/), final: false });
  });

  it.each([
    ['deleted', { deleted: true, endpoint: 'https://p.example/hook' }, /deleted/],
    ['without endpoint', { endpoint: null }, /no endpoint/],
    ['disabled by a 410', { endpoint: 'https://p.example/hook', disabledAt: new Date(0) }, /410 Gone/],
  ])('a provider %s is final: the delivery dies without an attempt', (_what, provider, reason) => {
    expect(refusalOf(provider)).toEqual({ reason: expect.stringMatching(reason), final: true });
  });

  it('a registered provider with an endpoint is not refused', () => {
    expect(refusalOf({ endpoint: 'https://p.example/hook', deleted: false, disabledAt: null })).toBeUndefined();
  });
});

describe('sendStep: a lane pass checks the breaker, then the endpoint limit, then the instance limit', () => {
  const open: SendLimits = {
    breakerAdmits: true,
    laneInFlight: 0,
    endpointConcurrency: 2,
    instanceInFlight: 0,
    maxInFlight: 10,
  };

  it('sends while every limit has room', () => {
    expect(sendStep(open)).toBe('send');
    expect(sendStep({ ...open, laneInFlight: 1, instanceInFlight: 9 })).toBe('send');
  });

  it('waits for a breaker that admits nothing, even with room everywhere', () => {
    expect(sendStep({ ...open, breakerAdmits: false })).toBe('wait-breaker');
    expect(sendStep({ ...open, breakerAdmits: false, laneInFlight: 2, instanceInFlight: 10 })).toBe('wait-breaker');
  });

  it('stops at the endpoint concurrency before the instance limit (a full endpoint does not starve)', () => {
    expect(sendStep({ ...open, laneInFlight: 2 })).toBe('endpoint-full');
    expect(sendStep({ ...open, laneInFlight: 2, instanceInFlight: 10 })).toBe('endpoint-full');
  });

  it('is starved at the instance-wide limit', () => {
    expect(sendStep({ ...open, instanceInFlight: 10 })).toBe('instance-full');
  });
});

describe('planBreakerWait: an open breaker holds its lane', () => {
  const spanMs = 60_000;
  const d = (id: string, cycleStartedAt: number, nextAttemptAt: number) => ({ id, cycleStartedAt, nextAttemptAt });

  it('deliveries past their window die; the others wait for the trial, never earlier than they were due', () => {
    const now = 100_000;
    const expired = d('old', now - spanMs, now);
    const dueNow = d('due', now - 1_000, now);
    const dueLater = d('later', now - 1_000, now + 30_000);
    const plan = planBreakerWait([expired, dueNow, dueLater], now, spanMs, now + 5_000);
    expect(plan.expired).toEqual([expired]);
    expect(plan.waiting).toEqual([
      { delivery: dueNow, nextAttemptAt: now + 5_000 },
      { delivery: dueLater, nextAttemptAt: now + 30_000 },
    ]);
  });

  it('keeps the order of the lane and changes none of the deliveries', () => {
    const ready = [d('a', 0, 10), d('b', 0, 5), d('c', 0, 20)];
    const copy = structuredClone(ready);
    const plan = planBreakerWait(ready, 1_000, spanMs, 2_000);
    expect(plan.waiting.map((w) => w.delivery.id)).toEqual(['a', 'b', 'c']);
    expect(ready).toEqual(copy);
  });
});

describe('chains: only the earliest open delivery of an interaction may go', () => {
  type D = OpenDelivery & { sending: boolean };
  const d = (id: string, seq: number, notification: D['notification'], sending = false): D => ({
    id,
    interactionKey: 'acme:i1',
    seq,
    notification,
    sending,
  });

  it('the first delivery of an interaction is scheduled at once', () => {
    const assign = d('a', 4, 'AssignToAgent');
    expect(admitToChain([], assign, compareDeliveries)).toEqual({
      chain: [assign],
      schedule: assign,
      unqueue: undefined,
    });
  });

  it('a later delivery waits behind the open earlier one', () => {
    const assign = d('a', 4, 'AssignToAgent');
    const release = d('r', 9, 'Release');
    expect(admitToChain([assign], release, compareDeliveries)).toEqual({
      chain: [assign, release],
      schedule: undefined,
      unqueue: undefined,
    });
  });

  it('an earlier delivery arriving late displaces the queued head, which waits again', () => {
    const release = d('r', 9, 'Release');
    const assign = d('a', 4, 'AssignToAgent');
    expect(admitToChain([release], assign, compareDeliveries)).toEqual({
      chain: [assign, release],
      schedule: assign,
      unqueue: release,
    });
  });

  it('a head already being sent is not displaced: the earlier one follows when it finishes', () => {
    const release = d('r', 9, 'Release', true);
    const assign = d('a', 4, 'AssignToAgent');
    const plan = admitToChain([release], assign, compareDeliveries);
    expect(plan).toEqual({ chain: [assign, release], schedule: undefined, unqueue: undefined });
    // When the one being sent finishes, the earlier one (now the head) is scheduled.
    expect(leaveChain(plan.chain, release, () => false)).toEqual({ chain: [assign], schedule: assign });
  });

  it('when the head finishes, the next is scheduled unless it is being sent or has its retry timer', () => {
    const assign = d('a', 4, 'AssignToAgent');
    const release = d('r', 9, 'Release');
    expect(leaveChain([assign, release], assign, () => false)).toEqual({ chain: [release], schedule: release });
    expect(leaveChain([assign, release], assign, (x) => x === release)).toEqual({
      chain: [release],
      schedule: undefined,
    });
    expect(leaveChain([assign, { ...release, sending: true }], assign, () => false).schedule).toBeUndefined();
    expect(leaveChain([assign], assign, () => false)).toEqual({ chain: [], schedule: undefined });
  });
});
