import { newEvent } from '../src/envelope';
import { withEvents } from '../src/outbox';
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
  newEvent({ source: '/t', type, subject: 's1', accountId: 'a1', data });

describe('EventSchemas', () => {
  it('accepts a valid event', () => {
    expect(() => schemas.assertValid(ev({ n: 1 }))).not.toThrow();
  });
  it('rejects data breaking its schema, naming the field', () => {
    expect(() => schemas.assertValid(ev({ n: 'x' }))).toThrow(/data\/n must be integer/);
  });
  it('rejects unknown types and broken envelopes', () => {
    expect(() => schemas.assertValid(ev({ n: 1 }, 'other.thing'))).toThrow(InvalidEventError);
    expect(() => schemas.assertValid({ ...ev({ n: 1 }), accountid: undefined })).toThrow(/accountid/);
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
    expect(u.$set).toEqual({ qty: 2 });
  });
});
