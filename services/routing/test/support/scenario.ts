import { eventually } from '@cc/testing';
import { Api, expectOk } from './api';
import type { Harness } from './harness';

/** An account with a route, a provider with the given permissions (if any) and one Ready agent. */
export async function scenario(h: Harness, base: string, permitted?: Record<string, 0 | 1>) {
  const api = await Api.for(h, base, h.account());
  await api.setupRoute('Support');
  let provider: string | undefined;
  if (permitted) {
    provider = `Prov-${
      Object.entries(permitted)
        .map(([k, v]) => `${k}${v}`)
        .join('-') || 'none'
    }`;
    await h.registerProvider(api.accountId, provider, permitted);
    await eventually(() => api.invoke({ provider, requests: [{ route: 'Support', externalId: 'probe' }] }), {
      accept: (r) => r.status === 202,
      timeoutMs: 30_000,
      what: `provider ${provider} known`,
    });
    expectOk(await api.invoke({ provider, requests: [{ action: 'release', externalId: 'probe' }] }));
  }
  const agentId = await api.createAgent('agent.one', { ready: true });
  return { api, provider, agentId };
}

/** Dispatches one live interaction and accepts its offer at the agent. */
export async function dispatchAndAccept(
  api: Api,
  agentId: string,
  provider?: string,
  externalId = `ext-${Math.random()}`,
) {
  const res = expectOk(
    await api.invoke({
      ...(provider ? { provider } : {}),
      requests: [{ externalId, route: 'Support', routingdata: { interactiontype: 'live' } }],
    }),
  );
  const interactionId = res.body.results[0].interactionId as string;
  const offer = await eventually(
    async () =>
      (await api.agent('GET', `/${agentId}/offers`)).body?.find(
        (o: { interactionId: string }) => o.interactionId === interactionId,
      ),
    {
      what: 'the offer',
    },
  );
  expectOk(await api.agent('POST', `/${agentId}/offers/${offer.offerId}/accept`));
  return { interactionId, externalId };
}
