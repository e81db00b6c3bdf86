import { blockersOf, type OpenDelivery } from '../../src/domain/ordering';

const d = (
  id: string,
  interactionKey: string,
  seq: number,
  notification: OpenDelivery['notification'],
): OpenDelivery => ({
  id,
  interactionKey,
  seq,
  notification,
});

describe('ordering per interaction', () => {
  it('holds a Release while the AssignToAgent of its interaction is open', () => {
    const assign = d('a', 'acme:i1', 4, 'AssignToAgent');
    const release = d('r', 'acme:i1', 9, 'Release');
    const blocked = blockersOf([release], [assign, release]);
    expect(blocked.get('r')?.id).toBe('a');
  });

  it('lets the earliest delivery of each interaction go, and other interactions independently', () => {
    const a1 = d('a1', 'acme:i1', 4, 'AssignToAgent');
    const r1 = d('r1', 'acme:i1', 9, 'Release');
    const a2 = d('a2', 'acme:i2', 4, 'AssignToAgent');
    const blocked = blockersOf([a1, r1, a2], [a1, r1, a2]);
    expect([...blocked.keys()]).toEqual(['r1']);
  });

  it('does not hold a delivery behind finished ones (not in the open set)', () => {
    const r = d('r', 'acme:i1', 9, 'Release');
    expect(blockersOf([r], [r]).size).toBe(0);
  });

  it('holds behind an earlier open delivery even when it is not due (not a candidate)', () => {
    const a = d('a', 'acme:i1', 4, 'AssignToAgent');
    const r = d('r', 'acme:i1', 9, 'Release');
    expect(blockersOf([r], [a]).get('r')?.id).toBe('a');
  });

  it('orders AssignToAgent before Release on equal sequence, and keys by account', () => {
    const a = d('z', 'acme:i1', 5, 'AssignToAgent');
    const r = d('b', 'acme:i1', 5, 'Release');
    expect(blockersOf([a, r], [a, r]).get('b')?.id).toBe('z');
    const other = d('o', 'globex:i1', 9, 'Release');
    expect(blockersOf([other], [a, other]).size).toBe(0);
  });
});
