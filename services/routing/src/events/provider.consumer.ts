import type { CloudEvent, HandlerContext } from '@cc/bus';
import { effectivePermissions } from '../domain/permissions';
import type { EffectivePermissions } from '../domain/types';
import type { ProviderRepository } from '../store/provider.repository';

interface ProviderStateData {
  provider: string;
  version: number;
  permissions?: EffectivePermissions;
  agentactionspermitted?: Record<string, 0 | 1>;
}

/**
 * Keeps the provider read model from cc.provider.v1 (event-carried state): registered/updated store
 * the effective permissions, deleted marks the name unknown to Invoke. Stale versions are ignored.
 */
export function providerEventHandler(providers: ProviderRepository) {
  return async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    const data = event.data as ProviderStateData;
    switch (event.type) {
      case 'provider.registered':
      case 'provider.updated':
        await providers.apply(event.accountid, data.provider, data.version, {
          permissions: data.permissions ?? effectivePermissions(data.agentactionspermitted ?? {}),
        });
        ctx.log.debug({ provider: data.provider, version: data.version }, 'provider read model updated');
        return;
      case 'provider.deleted':
        await providers.apply(event.accountid, data.provider, data.version, { deleted: true });
        return;
      default:
        return;
    }
  };
}
