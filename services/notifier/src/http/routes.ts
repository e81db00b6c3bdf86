import { adminListQuery, apiVersions, deliveriesQuery, idParams, nameParams, replayRequest } from '@cc/contracts';
import { negotiateVersion, type Principal, requireAuth, validateRequest } from '@cc/kit';
import type { Express } from 'express';
import type { EndpointBreakers } from '../clients/endpoint-breakers';
import type { DeliveryRepository } from '../store/delivery.repository';
import type { ProviderRepository } from '../store/provider.repository';
import { breakersHandler } from './breakers.handler';
import { deliveryHandlers, type LivePipeline } from './deliveries.handler';

/** What the admin API needs. */
export interface RoutesDeps {
  verify: (token: string) => Promise<Principal>;
  deliveries: DeliveryRepository;
  providers: ProviderRepository;
  breakers: EndpointBreakers;
  /** The pipeline: current next attempts of open deliveries, and where replayed ones go. */
  pipeline: LivePipeline;
  /** This instance's name and lease, given to replayed deliveries. */
  owner: string;
  leaseMs: number;
}

/** Mounts the notifier's admin API (scope `admin`, paths of the contracts' admin document). */
export function mountRoutes(app: Express, deps: RoutesDeps): void {
  const guard = [requireAuth(deps.verify, 'admin'), negotiateVersion(apiVersions.admin)];
  const d = deliveryHandlers(deps.deliveries, deps.providers, deps.pipeline, {
    owner: deps.owner,
    leaseMs: deps.leaseMs,
  });
  app.get('/admin/deliveries', ...guard, validateRequest({ query: deliveriesQuery }), d.list);
  app.get('/admin/deliveries/:id', ...guard, validateRequest({ params: idParams }), d.get);
  app.post('/admin/deliveries/:id/replay', ...guard, validateRequest({ params: idParams }), d.replayOne);
  app.post(
    '/admin/providers/:name/deliveries/replay',
    ...guard,
    validateRequest({ params: nameParams, body: replayRequest }),
    d.replayProvider,
  );
  app.get(
    '/admin/breakers',
    ...guard,
    validateRequest({ query: adminListQuery }),
    breakersHandler(deps.providers, deps.breakers),
  );
}
