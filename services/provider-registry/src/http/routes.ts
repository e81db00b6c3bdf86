import { adminListQuery, apiVersions, nameParams, providerSettings } from '@cc/contracts';
import { negotiateVersion, type Principal, requireAuth, validateRequest } from '@cc/kit';
import type { Express } from 'express';
import type { ProviderService } from '../app/provider.service';
import type { EndpointAllowlist, ResolveHost } from '../domain/endpoint-policy';
import {
  deleteProviderHandler,
  getProviderHandler,
  listProvidersHandler,
  rotateSigningSecretHandler,
} from './admin-providers.handler';
import { registerHandler } from './register.handler';

/** What the provider registry's routes need from the composition root. */
export interface RouteDeps {
  verify: (token: string) => Promise<Principal>;
  providers: ProviderService;
  allowlist: EndpointAllowlist;
  resolve: ResolveHost;
}

/**
 * Mounts the provider registry's API: Register (scope `interactions:write`, both path spellings) and the
 * provider administration (scope `admin`). Order per route: auth (401/403), version (406), schema (400), handler.
 */
export function mountRoutes(app: Express, deps: RouteDeps): void {
  const interactions = [requireAuth(deps.verify, 'interactions:write'), negotiateVersion(apiVersions.interactions)];
  const admin = [requireAuth(deps.verify, 'admin'), negotiateVersion(apiVersions.admin)];
  const byName = validateRequest({ params: nameParams });

  app.post(
    ['/interactions/Register', '/interactions/register'],
    ...interactions,
    validateRequest({ body: providerSettings }),
    registerHandler(deps),
  );
  app.get(
    '/admin/providers',
    ...admin,
    validateRequest({ query: adminListQuery }),
    listProvidersHandler(deps.providers),
  );
  app.get('/admin/providers/:name', ...admin, byName, getProviderHandler(deps.providers));
  app.delete('/admin/providers/:name', ...admin, byName, deleteProviderHandler(deps.providers));
  app.post('/admin/providers/:name/signing-secret', ...admin, byName, rotateSigningSecretHandler(deps.providers));
}
