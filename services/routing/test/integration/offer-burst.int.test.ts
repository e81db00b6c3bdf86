import { Api, expectOk, type Reply } from '../support/api';
import { Harness } from '../support/harness';

const h = new Harness();

beforeAll(() => h.setup(), 60_000);
afterAll(() => h.teardown(), 120_000);

/** What became of one offer a desktop listed. */
interface Seen {
  agentId: string;
  interactionId: string;
  offerId: string;
  expiresAt: number;
  status: number;
  /** When the accept was sent, and how long it took. */
  at: number;
  ms: number;
}

/**
 * Issue 14: under a burst of Invokes, an offer an agent's GET offers had just listed answered 404 on accept
 * moments later, well inside its ring time. Nothing here releases an interaction or lets an offer ring out, so
 * every offer a desktop lists must be acceptable: a 404 is an offer that vanished.
 */
it('a burst of Invokes through two instances: every offer a desktop listed is accepted (none vanish)', async () => {
  const total = Number(process.env.ROUTING_BURST_COUNT ?? 150);
  // A very short lease: a pass step under load outlasts it, so the two instances' passes overlap (as a slow
  // step outlasting LEASE_MS would), which the conditional writes make harmless but which withdraws
  // reservations whose offer write lost. At 150 ms main answered 404 for 10 of 160 listed offers (load ~10);
  // at 500 ms and 10 s it did not reproduce in 2 runs.
  const settings = {
    LOG_LEVEL: 'debug',
    ENGINE_PASS_GAP_MS: '100',
    LEASE_MS: process.env.ROUTING_BURST_LEASE_MS ?? '150',
  };
  const one = await h.start({ ...settings, INSTANCE_ID: 'burst-1' });
  const two = await h.start({ ...settings, INSTANCE_ID: 'burst-2' });
  const apiOne = await Api.for(h, one.url(), h.account());
  const apiTwo = apiOne.on(two.url());
  const apis = [apiOne, apiTwo];
  let turn = 0;
  const next = () => apis[turn++ % apis.length] as Api;
  await apiOne.setupRoute('Support');
  const capacity = { calls: 1, semiLive: 2, nonLive: 4 };
  const agents = await Promise.all(
    Array.from({ length: 10 }, (_, i) => apiOne.createAgent(`burst-${i}`, { capacity })),
  );
  await Promise.all(agents.map((id) => next().agent('PUT', `/${id}/presence`, { presence: 'Ready' })));

  // The burst: 1-object Invocations, 15 at a time, alternately through both instances, mixed types.
  const types = ['live', 'chat', 'nonlive'] as const;
  const ids: string[] = [];
  const burst = (async () => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: 15 }, async () => {
        while (sent < total) {
          const i = sent++;
          const res = expectOk(
            await next().invoke({
              requests: [{ route: 'Support', routingdata: { interactiontype: types[i % types.length] } }],
            }),
          );
          ids.push(res.body.results[0].interactionId);
        }
      }),
    );
  })();

  // Desktops: list offers, accept each at once, release and end wrap (capacity comes back for the next ones).
  const deadline = Date.now() + 300_000;
  const handled = new Set<string>();
  const seen: Seen[] = [];
  const desktop = async (agentId: string) => {
    while (handled.size < total && Date.now() < deadline) {
      const offers: { offerId: string; interactionId: string; expiresAt: string }[] =
        expectOk(await next().agent('GET', `/${agentId}/offers`)).body ?? [];
      if (!offers.length) {
        await new Promise((r) => setTimeout(r, 50));
        continue;
      }
      for (const offer of offers) {
        const at = Date.now();
        const accepted: Reply = await next().agent('POST', `/${agentId}/offers/${offer.offerId}/accept`);
        seen.push({
          agentId,
          interactionId: offer.interactionId,
          offerId: offer.offerId,
          expiresAt: Date.parse(offer.expiresAt),
          status: accepted.status,
          at,
          ms: Date.now() - at,
        });
        if (accepted.status !== 200) continue;
        expectOk(await next().agent('POST', `/${agentId}/interactions/${offer.interactionId}/release`));
        expect((await next().agent('POST', `/${agentId}/interactions/${offer.interactionId}/end-wrap`)).status).toBe(
          204,
        );
        handled.add(offer.interactionId);
      }
    }
  };
  await Promise.all([burst, ...agents.map(desktop)]);

  // An offer listed and answered 404 while it still had ring time left vanished; which path withdrew it is logged.
  const vanished = seen.filter((s) => s.status === 404 && s.at < s.expiresAt);
  // Reservations withdrawn (the engine's offer write lost) or dropped (agent sync), with their offer/channel.
  const withdrawals = h.logs.lines.filter((l) => /reservation (withdrawn|dropped)/.test(l));
  const statuses = new Map<number, number>();
  for (const s of seen) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1);
  process.stdout.write(
    `[offer-burst] ${total} interactions, ${seen.length} accepts: ${JSON.stringify(Object.fromEntries(statuses))}; ` +
      `vanished ${vanished.length}; withdrawals logged ${withdrawals.length} (of ${h.logs.lines.length} log lines)\n${withdrawals.slice(0, 20).join('\n')}\n`,
  );
  // Withdrawals may happen (overlapping holders); a withdrawn reservation was never listed.
  expect(vanished).toEqual([]);
  expect(handled.size).toBe(total);
  expect(new Set(ids).size).toBe(total);
}, 420_000);
