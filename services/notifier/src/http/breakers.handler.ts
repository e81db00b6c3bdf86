import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import { EndpointBreakers } from '../clients/endpoint-breakers';
import { endpointKeyOf } from '../domain/keys';
import type { ProviderRepository } from '../store/provider.repository';

/** GET /admin/breakers: the breaker of each of the account's provider endpoints, as this instance sees it. */
export function breakersHandler(providers: ProviderRepository, breakers: EndpointBreakers): RequestHandler {
  return async (req, res) => {
    const q = req.query as unknown as { page: number; limit: number };
    const { items, total } = await providers.listWithEndpoint(principalOf(res).accountId, q.page, q.limit);
    res.json({
      meta: { page: q.page, count: items.length, pageCount: Math.ceil(total / q.limit), totalCount: total },
      items: items.map((p) => {
        const gate = breakers.find(endpointKeyOf(p.accountId, p.provider));
        const state = p.disabledAt ? 'disabled' : gate ? EndpointBreakers.state(gate) : 'closed';
        return {
          provider: p.provider,
          state,
          failures: gate?.consecutiveFailures ?? 0,
          openedAt: gate?.openedAt && state !== 'closed' ? new Date(gate.openedAt).toISOString() : null,
        };
      }),
    });
  };
}
