import { outboxEntries } from '@cc/bus';
import { type OutcomeWrite, outcomeUpdate } from '../../src/store/delivery.repository';

const at = new Date('2026-01-01T00:00:00Z');
const write = (over: Partial<OutcomeWrite>): OutcomeWrite => ({
  id: 'd1',
  version: 3,
  state: 'failed',
  nextAttemptAt: new Date(at.getTime() + 1_000),
  status: 503,
  error: null,
  attempts: [],
  attemptsMade: 1,
  outbox: [],
  at,
  ...over,
});

describe('the outcome write', () => {
  it('stages events it could not publish with the outbox flag, so the periodic sweep finds them', () => {
    const outbox = outboxEntries('cc.notifier.deliveries', [{ id: 'e1' } as never, { id: 'e2' } as never]);
    const update = outcomeUpdate(write({ outbox })) as Record<string, Record<string, unknown>>;
    expect(update.$set).toMatchObject({ outboxPending: true, state: 'failed' });
    expect(update.$push).toEqual({ outbox: { $each: outbox } });
    expect(update.$inc).toEqual({ version: 1, attemptCount: 1, outboxSeq: 2 });
  });

  it('leaves the flag and the outbox alone when every event was published', () => {
    const update = outcomeUpdate(write({ state: 'delivered', status: 200 })) as Record<string, Record<string, unknown>>;
    expect(update.$set).not.toHaveProperty('outboxPending');
    expect(update).not.toHaveProperty('$push');
    expect(update.$inc).toEqual({ version: 1, attemptCount: 1 });
    expect(update.$set).toMatchObject({ state: 'delivered', finishedAt: at, owner: null, deliveredAt: at });
  });
});
