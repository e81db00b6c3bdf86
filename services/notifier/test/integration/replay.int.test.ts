import { eventually } from '@cc/testing';
import { NotifierHarness, newSigningSecret } from '../helpers/notifier-harness';

jest.setTimeout(120_000);

// Issue 19 item 10: replaying the deliveries of a provider the account never registered was a 202 {replayed: 0}.
const account = `replay-${Date.now().toString(36)}`;
let h: NotifierHarness;

beforeAll(async () => {
  h = await NotifierHarness.create();
  await h.start();
});
afterAll(async () => {
  await h?.close();
});

it('answers 404 for a provider the account does not have, 202 for one it has', async () => {
  const since = new Date(Date.now() - 60_000).toISOString();
  const unknown = await h.api('POST', '/admin/providers/NoSuchProvider/deliveries/replay', account, { since });
  expect(unknown.status).toBe(404);
  expect(unknown.body).toMatchObject({ code: 'NOTIFIER.PROVIDER_NOT_FOUND' });
  expect(unknown.body.detail).toContain('NoSuchProvider');

  await h.publishProvider({
    accountId: account,
    provider: 'Known',
    endpoint: 'https://127.0.0.1:9/hooks',
    secrets: [{ secret: newSigningSecret(), validUntil: null }],
    version: 1,
  });
  const known = await eventually(() => h.api('POST', '/admin/providers/Known/deliveries/replay', account, { since }), {
    accept: (r) => r.status === 202,
    what: 'provider Known replayable',
    timeoutMs: 30_000,
  });
  expect(known.body).toEqual({ replayed: 0 });
  // Another account's provider of the same name is not this account's.
  const other = await h.api('POST', '/admin/providers/Known/deliveries/replay', `${account}-other`, { since });
  expect(other.status).toBe(404);
});
