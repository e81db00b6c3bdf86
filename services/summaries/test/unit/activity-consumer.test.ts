import { randomUUID } from 'node:crypto';
import type { CloudEvent, HandlerContext } from '@cc/bus';
import { SummaryBook } from '../../src/domain/book';
import { AccountFlags } from '../../src/domain/flags';
import { summariesEventHandler } from '../../src/events/activity.consumer';
import { RecentIds } from '../../src/events/recent-ids';
import { AgentEvents } from '../builders/activity.builders';

const acc = 'acc-1';
const ctx = { topic: 'cc.agent-activity.v1', partition: 0 } as unknown as HandlerContext;
const envelope = (e: { type: string; data: unknown }, id = randomUUID()) =>
  ({ id, accountid: acc, ...e }) as unknown as CloudEvent;

/** A book counting the events applied to it. */
function countingBook() {
  const book = new SummaryBook();
  const applied: string[] = [];
  const apply = book.apply.bind(book);
  book.apply = (accountId, event, now) => {
    applied.push((event as { type: string }).type);
    apply(accountId, event, now);
  };
  return { book, applied };
}

describe('the event handlers remember applied event ids', () => {
  it('apply an event id once', async () => {
    const { book, applied } = countingBook();
    const each = summariesEventHandler(book, new AccountFlags(), new RecentIds());
    const ev = envelope(new AgentEvents().presence('2026-01-01T10:02:00.000Z', 'Ready'));
    await each(ev, ctx);
    await each({ ...ev }, ctx);
    expect(applied).toHaveLength(1);
    expect(book.size()).toBe(1);
  });

  it('apply again an event that threw (its id is remembered only once applied)', async () => {
    const { book, applied } = countingBook();
    const each = summariesEventHandler(book, new AccountFlags(), new RecentIds());
    const ev = envelope(new AgentEvents().presence('2026-01-01T10:02:00.000Z', 'Ready'));
    const apply = book.apply;
    book.apply = () => {
      throw new Error('boom');
    };
    await expect(each(ev, ctx)).rejects.toThrow('boom');
    book.apply = apply;
    await each(ev, ctx);
    expect(applied).toHaveLength(1);
    expect(book.size()).toBe(1);
  });

  it('forget the oldest ids past their capacity', () => {
    const recent = new RecentIds(2);
    for (const id of ['a', 'b', 'c']) recent.add(id);
    expect(['a', 'b', 'c'].map((id) => recent.has(id))).toEqual([false, true, true]);
  });
});
