// Diagnostic: the scale scenario with progress output (not a test).
import { Api, expectOk } from './api';
import { Harness } from './harness';

(async () => {
  const h = await new Harness().setup();
  const t0 = Date.now();
  const log = (m: string) => process.stdout.write(`${((Date.now() - t0) / 1000).toFixed(1)}s ${m}\n`);
  const settings = { OFFER_TIMEOUT_MS: '120000', LEASE_MS: '2000', LOG_LEVEL: process.env.PROBE_LOG ?? 'warn' };
  const one = await h.start({ ...settings, INSTANCE_ID: 'p-1' });
  const two = await h.start({ ...settings, INSTANCE_ID: 'p-2' });
  const a1 = await Api.for(h, one.url(), h.account());
  const a2 = a1.on(two.url());
  await a1.setupRoute('Support');
  const n = Number(process.env.N ?? 200);
  const agents = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      a1.createAgent(`agent-${i}`, { capacity: { calls: 1, semiLive: 2, nonLive: 2 } }),
    ),
  );
  await Promise.all(agents.map((id) => a1.agent('PUT', `/${id}/presence`, { presence: 'Ready' })));
  log('setup done');
  const types = ['live', 'chat', 'nonlive'];
  for (let b = 0; b < n / 50; b++) {
    expectOk(
      await (b % 2 ? a2 : a1).invoke({
        requests: Array.from({ length: 50 }, (_, i) => ({
          route: 'Support',
          routingdata: { interactiontype: types[(b * 50 + i) % 3] },
        })),
      }),
    );
    log(`batch ${b} dispatched`);
  }
  let handled = 0;
  const timer = setInterval(() => log(`handled ${handled}`), 5000);
  await Promise.all(
    agents.map(async (id, i) => {
      let turn = i;
      while (handled < n) {
        const api = turn++ % 2 ? a2 : a1;
        const offers = (await api.agent('GET', `/${id}/offers`)).body ?? [];
        if (!offers.length) {
          await new Promise((r) => setTimeout(r, 300));
          continue;
        }
        for (const o of offers) {
          const acc = await api.agent('POST', `/${id}/offers/${o.offerId}/accept`);
          if (acc.status === 404) {
            log(`offer withdrawn: ${o.offerId}`);
            continue;
          }
          expectOk(acc);
          expectOk(await api.agent('POST', `/${id}/interactions/${o.interactionId}/release`));
          await api.agent('POST', `/${id}/interactions/${o.interactionId}/end-wrap`);
          handled++;
        }
      }
    }),
  );
  clearInterval(timer);
  log(`all ${handled} handled`);
  const passes = h.logs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'routing pass');
  for (const p of passes) log(`pass ${p.time} ms=${p.ms} live=${p.live} queued=${p.queued} touched=${p.touched}`);
  const ms = passes.map((p) => p.ms).sort((a, b) => a - b);
  log(
    `passes ${passes.length}, p50 ${ms[Math.floor(ms.length / 2)]} ms, p90 ${ms[Math.floor(ms.length * 0.9)]} ms, max ${ms.at(-1)} ms`,
  );
  const reqs = h.logs.lines.map((l) => JSON.parse(l)).filter((l) => l.responseTime !== undefined);
  const byRoute = new Map<string, number[]>();
  for (const r of reqs) {
    const key = `${r.req?.method} ${String(r.req?.url).replace(/[0-9a-f-]{36}/g, ':id')}`;
    byRoute.set(key, [...(byRoute.get(key) ?? []), r.responseTime]);
  }
  for (const [k, v] of byRoute) {
    v.sort((a, b) => a - b);
    log(`${k}: n=${v.length} p50=${v[Math.floor(v.length / 2)]} p90=${v[Math.floor(v.length * 0.9)]} max=${v.at(-1)}`);
  }
  await h.teardown();
  process.exit(0);
})();
