import { exampleEvent } from '@cc/contracts';
import { type CloudEvent, newEvent } from '../src/envelope';
import { entryEvent, outboxEntries, withEvents } from '../src/outbox';
import { EventSchemas, InvalidEventError } from '../src/schemas';

const schemas = new EventSchemas({
  'thing.happened': {
    type: 'object',
    required: ['n'],
    properties: { n: { type: 'integer' } },
    additionalProperties: false,
  },
});
const ev = (data: unknown, type = 'thing.happened') =>
  newEvent({ source: '/cc/test', type, subject: 's1', accountId: 'a1', data });

describe('EventSchemas', () => {
  it('accepts a valid event', () => {
    expect(() => schemas.assertValid(ev({ n: 1 }))).not.toThrow();
  });
  it('rejects data breaking its schema, naming the field', () => {
    expect(() => schemas.assertValid(ev({ n: 'x' }))).toThrow(/\/data\/n: n must be an integer/);
  });
  it('rejects unknown types and broken envelopes on produce', () => {
    expect(() => schemas.assertValid(ev({ n: 1 }, 'other.thing'))).toThrow(InvalidEventError);
    expect(() => schemas.assertValid({ ...ev({ n: 1 }), accountid: undefined })).toThrow(/accountid/);
  });
  it("validates with the contracts' envelope, not a looser one of its own", () => {
    expect(() => schemas.assertValid({ ...ev({ n: 1 }), source: 'not-a-service' })).toThrow(/\/source/);
    expect(() => schemas.assertValid({ ...ev({ n: 1 }), time: '2024-05-01T08:00:00Z' })).toThrow(/\/time/);
    expect(() => schemas.assertValid({ ...ev({ n: 1 }), datacontenttype: undefined })).toThrow(/datacontenttype/);
  });
  it('on consume, tells an unknown type (skipped) from an invalid event (dead-lettered)', () => {
    expect(schemas.checkConsumed(ev({ n: 1 }, 'thing.renamed'), 't')).toEqual({
      kind: 'unknown-type',
      type: 'thing.renamed',
    });
    expect(schemas.checkConsumed(ev({ n: 'x' }), 't')).toMatchObject({ kind: 'invalid' });
    expect(schemas.checkConsumed(ev({ n: 1 }), 't')).toMatchObject({ kind: 'valid' });
  });
  it('defaults to the AsyncAPI document of the contracts', () => {
    const contracts = new EventSchemas();
    const deleted = exampleEvent('provider.deleted');
    expect(contracts.checkConsumed(deleted, 'cc.provider.v1')).toMatchObject({ kind: 'valid' });
    expect(contracts.checkConsumed(deleted, 'cc.interaction.v1')).toMatchObject({ kind: 'invalid' });
    expect(contracts.checkConsumed({ ...deleted, type: 'provider.renamed' }, 'cc.provider.v1')).toEqual({
      kind: 'unknown-type',
      type: 'provider.renamed',
    });
  });
});

describe('withEvents', () => {
  it("adds every event in order and counts the staging, keeping the caller's own operators", () => {
    const a = ev({ n: 1 });
    const b = ev({ n: 2 });
    const u = withEvents({ $set: { qty: 2 }, $inc: { version: 1 } }, 'cc.t.v1', [a, b]);
    const pushed = (u.$push as { outbox: { $each: { _id: string; topic: string }[] } }).outbox.$each;
    expect(pushed.map((e) => e._id)).toEqual([a.id, b.id]);
    expect(pushed[0]?.topic).toBe('cc.t.v1');
    expect(u.$inc).toEqual({ version: 1, outboxSeq: 2 });
    expect(u.$set).toEqual({ qty: 2, outboxPending: true });
  });
});

describe('outbox entries', () => {
  it('hold each event as its JSON text, every part kept (empty objects too), and read back as the event', () => {
    const e = { ...ev({ n: 1 }), data: { n: 1, extra: {} } } as CloudEvent;
    const [entry] = outboxEntries('cc.t.v1', [e]);
    expect(typeof entry?.event).toBe('string');
    expect(entry).toMatchObject({ _id: e.id, topic: 'cc.t.v1' });
    expect(entryEvent(entry as never)).toEqual(e);
  });

  it('read an entry staged before events were kept as text (the object itself)', () => {
    const e = ev({ n: 2 });
    expect(entryEvent({ _id: e.id, event: e })).toBe(e);
  });

  it('refuse text that does not parse as an invalid event, naming the entry', () => {
    expect(() => entryEvent({ _id: 'ev-9', event: '{"id":' })).toThrow(InvalidEventError);
    expect(() => entryEvent({ _id: 'ev-9', event: '{"id":' })).toThrow(/outbox entry ev-9: unparseable event text/);
  });
});
