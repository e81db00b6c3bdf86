import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { eventually } from '@cc/testing';
import { deliveryIdFor } from '../../src/domain/notification';
import { NotifierHarness, newSigningSecret } from '../helpers/notifier-harness';
import { ProviderEndpoint } from '../helpers/provider-endpoint.server';

jest.setTimeout(240_000);

const root = resolve(__dirname, '../../../..');
const account = `crash-${Date.now().toString(36)}`;
let h: NotifierHarness;
let ep: ProviderEndpoint;
let child: ChildProcess | undefined;
let port = 0;

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const p = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return p;
}

/** Starts `node --import tsx services/notifier/src/main.ts` as a child process and waits until it is ready. */
async function startChild(): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'services/notifier/src/main.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...h.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logFile = process.env.NOTIFIER_TEST_LOG_FILE;
  for (const stream of [proc.stdout, proc.stderr]) {
    stream?.on('data', (chunk: Buffer) => {
      if (logFile) appendFileSync(logFile, chunk);
    });
  }
  await eventually(
    async () => {
      if (proc.exitCode !== null) throw new Error(`notifier exited with ${proc.exitCode}`);
      const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
      return res?.status === 200;
    },
    { what: 'notifier child ready', timeoutMs: 90_000, intervalMs: 250 },
  );
  return proc;
}

async function killHard(proc: ChildProcess): Promise<void> {
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGKILL');
  await exited;
}

beforeAll(async () => {
  port = await freePort();
  h = await NotifierHarness.create({
    DELIVERY_SCHEDULE: '0,300ms,600ms,1s,2s,4s,8s,8s',
    ATTEMPT_TIMEOUT_MS: '2000',
    LEASE_MS: '3000',
    LOG_LEVEL: 'info',
  });
  h.baseUrl = `http://127.0.0.1:${port}`;
  const secret = newSigningSecret();
  ep = await ProviderEndpoint.start(h.tls, [secret]);
  // Every answer takes a while, so deliveries are in flight when the process is killed.
  ep.reply = () => ({ status: 200, delayMs: 300 });
  child = await startChild();
  await h.publishProvider({
    accountId: account,
    provider: 'Durable',
    endpoint: ep.url,
    secrets: [{ secret, validUntil: null }],
    version: 1,
  });
  await eventually(
    async () =>
      (await h.api('GET', '/admin/breakers', account)).body.items.some(
        (b: { provider: string }) => b.provider === 'Durable',
      ),
    { what: 'provider known', timeoutMs: 30_000 },
  );
});

afterAll(async () => {
  if (child && child.exitCode === null) await killHard(child);
  await ep?.down();
  await h?.close();
});

describe('crash recovery', () => {
  it('kill -9 mid-delivery then restart: every notification delivered at least once, duplicates share webhook-id', async () => {
    const interactions = Array.from({ length: 12 }, () => h.interaction(account, 'Durable'));
    const expected = new Set(
      interactions.flatMap((it) => [
        deliveryIdFor(it.assigned.id, 'AssignToAgent'),
        deliveryIdFor(it.released.id, 'Release'),
      ]),
    );
    for (const it of interactions) await h.publishInteraction([it.queued, it.assigned, it.released]);

    // Kill while requests are in flight (received by the endpoint, not yet answered).
    await eventually(() => ep.received.length >= 3 && ep.received.some((r) => r.answered === undefined), {
      what: 'deliveries in flight',
      timeoutMs: 60_000,
      intervalMs: 20,
    });
    await killHard(child as ChildProcess);
    // Requests unanswered when the process died were certainly not recorded as delivered.
    const inFlightAtKill = ep.received.filter((r) => r.answered === undefined).map((r) => r.headers['webhook-id']);
    expect(inFlightAtKill.length).toBeGreaterThan(0);
    const receivedAtKill = ep.received.length;
    expect(receivedAtKill).toBeLessThan(expected.size);

    child = await startChild();
    await eventually(
      async () => {
        const res = await h.api('GET', '/admin/deliveries?provider=Durable&state=delivered&limit=100', account);
        return res.body.items.length === expected.size;
      },
      { what: 'every delivery delivered after the restart', timeoutMs: 90_000, intervalMs: 500 },
    );

    // Every notification reached the endpoint and was answered 2xx at least once; none is missing.
    const answered = new Set(ep.received.filter((r) => r.answered === 200).map((r) => r.headers['webhook-id']));
    expect([...expected].filter((id) => !answered.has(id))).toEqual([]);
    expect([...answered].filter((id) => !expected.has(id as string))).toEqual([]);
    // A duplicate is the same notification: same webhook-id, same notificationid, same body, valid signature.
    const byId = new Map<string, typeof ep.received>();
    for (const r of ep.received)
      byId.set(r.headers['webhook-id'] as string, [...(byId.get(r.headers['webhook-id'] as string) ?? []), r]);
    let duplicates = 0;
    for (const [id, rs] of byId) {
      if (rs.length > 1) duplicates++;
      for (const r of rs) {
        expect(r.signatureValid).toBe(true);
        expect(r.notifications[0]?.notificationid).toBe(id);
        expect(r.body).toBe(rs[0]?.body);
      }
    }
    // The requests in flight at the kill were sent again after the lease expired (same webhook-id).
    for (const id of inFlightAtKill) expect(byId.get(id as string)?.length).toBeGreaterThanOrEqual(2);
    expect(duplicates).toBeGreaterThanOrEqual(inFlightAtKill.length);

    // The interrupted attempts are in the delivery log.
    const interrupted = await Promise.all(
      inFlightAtKill.map(async (id) => (await h.api('GET', `/admin/deliveries/${id}`, account)).body),
    );
    for (const d of interrupted) {
      expect(d.state).toBe('delivered');
      expect(d.attempts.some((a: { error: string | null }) => a.error?.startsWith('interrupted'))).toBe(true);
    }

    // Ordering per interaction survived the crash: each Release arrived after its AssignToAgent was answered 2xx.
    for (const it of interactions) {
      const assignOk = byId.get(deliveryIdFor(it.assigned.id, 'AssignToAgent'))?.find((r) => r.answered === 200);
      const release = byId.get(deliveryIdFor(it.released.id, 'Release'))?.[0];
      expect(release?.at).toBeGreaterThanOrEqual(assignOk?.answeredAt as number);
    }
  });
});
