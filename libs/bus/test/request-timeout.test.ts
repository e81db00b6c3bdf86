/**
 * The request timeouts of kafkajs's request queue as patched (patches/kafkajs@2.2.4.patch): one timer for the
 * earliest deadline in flight, instead of a check every 100 ms while anything is in flight (a consumer's long-poll
 * fetch always is, so an idle consumer woke its process ten times a second per connection).
 */
// kafkajs's request queue is internal (no types): reached by its file.
const RequestQueue = require('kafkajs/src/network/requestQueue');

interface Sent {
  correlationId: number;
  outcome?: 'resolved' | 'rejected';
  error?: Error;
}

function queue(requestTimeout: number) {
  const checks = { connected: 0 };
  const q = new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout,
    enforceRequestTimeout: true,
    clientId: 'test',
    broker: '127.0.0.1:9092',
    logger: { debug: () => undefined, warn: () => undefined },
    // Every timeout check asks whether the connection is still open first: the count of checks.
    isConnected: () => {
      checks.connected++;
      return true;
    },
  });
  q.scheduleRequestTimeoutCheck(); // what the connection does once connected
  let next = 1;
  const send = (customTimeout?: number): Sent => {
    const sent: Sent = { correlationId: next++ };
    q.push({
      entry: {
        correlationId: sent.correlationId,
        apiKey: 1,
        apiName: 'Fetch',
        apiVersion: 11,
        resolve: () => {
          sent.outcome = 'resolved';
        },
        reject: (err: Error) => {
          sent.outcome = 'rejected';
          sent.error = err;
        },
      },
      expectResponse: true,
      sendRequest: () => undefined,
      ...(customTimeout ? { requestTimeout: customTimeout } : {}),
    });
    return sent;
  };
  const answer = (s: Sent) => q.fulfillRequest({ correlationId: s.correlationId, payload: Buffer.alloc(0), size: 0 });
  return { q, send, answer, checks };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe('kafkajs request queue (patched): request timeouts', () => {
  it('a request in flight is not checked on a tick: no check runs before its deadline', () => {
    const { q, send, checks } = queue(30_000);
    const fetch = send(35_000); // a long poll: requestTimeout plus maxWaitTime
    jest.advanceTimersByTime(34_000);
    expect(checks.connected).toBe(0); // 2.2.4 checked every 100 ms: 340 checks by now
    expect(fetch.outcome).toBeUndefined();
    expect(jest.getTimerCount()).toBe(1);
    q.destroy();
  });

  it('times a request out once its own timeout has passed, to the millisecond', () => {
    const { q, send } = queue(1_000);
    const req = send();
    jest.advanceTimersByTime(1_000);
    expect(req.outcome).toBeUndefined();
    jest.advanceTimersByTime(2);
    expect(req.outcome).toBe('rejected');
    expect(req.error?.name).toBe('KafkaJSRequestTimeoutError');
    expect(jest.getTimerCount()).toBe(0); // nothing in flight: nothing armed
    q.destroy();
  });

  it('a shorter request sent after a longer one is timed out at its own deadline', () => {
    const { q, send } = queue(1_000);
    const fetch = send(35_000);
    jest.advanceTimersByTime(500);
    const metadata = send();
    jest.advanceTimersByTime(1_002);
    expect(metadata.outcome).toBe('rejected');
    expect(fetch.outcome).toBeUndefined();
    jest.advanceTimersByTime(35_000 - 1_502 + 2);
    expect(fetch.outcome).toBe('rejected');
    q.destroy();
  });

  it('an answered request is not timed out, and the next one in flight keeps its deadline', () => {
    const { q, send, answer, checks } = queue(1_000);
    const first = send();
    jest.advanceTimersByTime(600);
    const second = send();
    answer(first);
    expect(first.outcome).toBe('resolved');
    jest.advanceTimersByTime(500); // the first one's deadline passes: one check, which re-arms for the second
    expect(checks.connected).toBe(1);
    expect(second.outcome).toBeUndefined();
    jest.advanceTimersByTime(502);
    expect(second.outcome).toBe('rejected');
    q.destroy();
  });

  it('checks nothing once destroyed (connection closed) or before the connection enabled the checks', () => {
    const { q, send, checks } = queue(1_000);
    send();
    q.destroy();
    jest.advanceTimersByTime(5_000);
    expect(checks.connected).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    const pending = send(); // after destroy and before a reconnect: not enforced, as in 2.2.4
    jest.advanceTimersByTime(5_000);
    expect(pending.outcome).toBeUndefined();
    q.scheduleRequestTimeoutCheck(); // reconnected: requests in flight are checked again
    expect(pending.outcome).toBe('rejected');
  });
});
