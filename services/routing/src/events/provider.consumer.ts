import type { CloudEvent, HandlerContext } from '@cc/bus';
import type { EffectivePermissions } from '../domain/types';
import type { ProviderRepository } from '../store/provider.repository';

interface ProviderStateData {
  provider: string;
  version: number;
  /** Computed by the registry from agentactionspermitted (required in the event). */
  permissions: EffectivePermissions;
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
          permissions: data.permissions,
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
