import { routingError } from './errors';
import type { AgentOperation, EffectivePermissions } from './types';

/**
 * What a provider whose permissions routing does not know permits: the spec's defaults (release only). The
 * rule that turns `agentactionspermitted` into permissions runs once, in the provider registry; its events
 * carry the result.
 */
export const defaultPermissions: EffectivePermissions = {
  release: true,
  hold: false,
  retrieve: false,
  transferToAgent: false,
  transferToRoute: false,
};

/** Everything allowed: interactions dispatched without a provider. */
export const allPermitted: EffectivePermissions = {
  release: true,
  hold: true,
  retrieve: true,
  transferToAgent: true,
  transferToRoute: true,
};

/** Throws AGENT.ACTION_FORBIDDEN (403, naming the operation) unless the provider permits it. */
export function assertPermitted(
  provider: string | null,
  permissions: EffectivePermissions | null,
  operation: AgentOperation,
): void {
  if (provider === null) return;
  const effective = permissions ?? defaultPermissions;
  if (!effective[operation]) {
    throw routingError('AGENT.ACTION_FORBIDDEN', `The provider ${provider} does not permit ${operation}`, [], {
      operation,
      provider,
    });
  }
}
