import { asMembershipError } from '../src/consumer';

describe('asMembershipError', () => {
  it('unwraps a membership error wrapped by the kafkajs retrier, so the runner re-joins the group', () => {
    const raw = Object.assign(new Error('The coordinator is not aware of this member'), { type: 'UNKNOWN_MEMBER_ID' });
    const wrapped = Object.assign(new Error(raw.message), { name: 'KafkaJSNonRetriableError', cause: raw });
    expect(asMembershipError(wrapped)).toBe(raw);
    expect(asMembershipError(raw)).toBe(raw);
  });

  it('leaves every other error as it is', () => {
    const other = Object.assign(new Error('broker down'), { cause: new Error('ECONNREFUSED') });
    expect(asMembershipError(other)).toBe(other);
    expect(asMembershipError(undefined)).toBeUndefined();
  });
});
