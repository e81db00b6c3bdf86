import { type ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { entryEvent, type OutboxEntry } from '@cc/bus';
import { eventually } from '@cc/testing';
import { Api, expectOk } from '../support/api';
import { Harness } from '../support/harness';

const root = resolve(__dirname, '../../../..');
const h = new Harness();
const children: ChildProcess[] = [];

beforeAll(() => h.setup(), 60_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  await h.teardown();
});

/** Spawns `node --import tsx services/routing/src/main.ts` and waits until it is ready. */
async function spawnRouting(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/routing/src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...h.env({ PORT: String(port), ...env }) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  await eventually(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status), {
    accept: (s) => s === 200,
    timeoutMs: 60_000,
    what: 'routing child ready',
  });
  return child;
}

function killed(child: ChildProcess): Promise<NodeJS.Signals | null> {
  return new Promise((r) => {
    child.once('exit', (_code, signal) => r(signal));
    child.kill('SIGKILL');
  });
}

it('kill -9 right after an accept: state and pending events survive and are delivered after restart', async () => {
  const port = 19000 + Math.floor(Math.random() * 900);
  const base = `http://127.0.0.1:${port}`;
  // Eager publishing off: events stay in the outbox until the relay's grace period, so the kill finds them pending.
  const first = await spawnRouting(port, { OUTBOX_EAGER_PUBLISH: 'false', INSTANCE_ID: 'crash-1', LEASE_MS: '3000' });
  const api = await Api.for(h, base, h.account());
  await api.setupRoute('Support');
  const agentId = await api.createAgent('jane', { ready: true });
  const d = expectOk(
    await api.invoke({
      requests: [{ externalId: 'crash-ext', route: 'Support', routingdata: { interactiontype: 'live' } }],
    }),
  );
  const interactionId = d.body.results[0].interactionId as string;
  const offer = await eventually(async () => (await api.agent('GET', `/${agentId}/offers`)).body?.[0], {
    what: 'offer',
    timeoutMs: 30_000,
  });
  expectOk(await api.agent('POST', `/${agentId}/offers/${offer.offerId}/accept`));
  expect(await killed(first)).toBe('SIGKILL');

  // The state was written with its events in one document: connected, and interaction.assigned still pending.
  const stored = await h.withDb((db) =>
    db.collection('interactions').findOne({ accountId: api.accountId, _id: interactionId } as never),
  );
  expect(stored?.state).toBe('connected');
  const pendingTypes = (stored?.outbox as OutboxEntry[]).map((e) => entryEvent(e).type);
  expect(pendingTypes).toContain('interaction.assigned');
  expect(h.collector?.of(interactionId).some((e) => e.type === 'interaction.assigned')).toBe(false);

  // Restart (a new instance id: it must take the account's lease over once the old lease expires).
  await spawnRouting(port, { INSTANCE_ID: 'crash-2', LEASE_MS: '3000' });
  const events = await eventually(() => h.collector?.of(interactionId) ?? [], {
    accept: (e) => e.some((x) => x.type === 'interaction.assigned'),
    timeoutMs: 30_000,
    what: 'the pending interaction.assigned delivered by the restarted relay',
  });
  expect(events.map((e) => e.type)).toEqual([
    'interaction.queued',
    'interaction.offered',
    'interaction.applet-executed',
    'interaction.assigned',
  ]);
  const activity = await eventually(() => h.collector?.of(agentId) ?? [], {
    accept: (e) => e.some((x) => x.type === 'agent-activity.segment-started' && x.data.segment === 'Connected'),
    timeoutMs: 30_000,
    what: 'the agent segments delivered',
  });
  expect(
    activity.filter((e) => e.type.includes('segment')).map((e) => `${e.type.split('-').pop()}:${e.data.segment}`),
  ).toEqual(['started:Ringing', 'ended:Ringing', 'started:Connected']);
  const after = await h.withDb((db) =>
    db.collection('interactions').findOne({ accountId: api.accountId, _id: interactionId } as never),
  );
  expect(after?.outbox).toEqual([]);

  // The restarted service carries on: the agent still has the interaction and can finish it; routing resumes.
  expect(expectOk(await api.agent('GET', `/${agentId}/interactions`)).body).toEqual([
    expect.objectContaining({ interactionId, state: 'connected' }),
  ]);
  expect(expectOk(await api.agent('POST', `/${agentId}/interactions/${interactionId}/release`)).body.state).toBe(
    'wrap',
  );
  expect((await api.agent('POST', `/${agentId}/interactions/${interactionId}/end-wrap`)).status).toBe(204);
  const next = expectOk(
    await api.invoke({ requests: [{ route: 'Support', routingdata: { interactiontype: 'live' } }] }),
  ).body.results[0].interactionId;
  const offer2 = await eventually(async () => (await api.agent('GET', `/${agentId}/offers`)).body?.[0], {
    what: 'offer after restart',
    timeoutMs: 30_000,
  });
  expect(offer2.interactionId).toBe(next);
}, 180_000);
