import { routingError } from './errors';
import type { AgentOperation, EffectivePermissions } from './types';

/** The agentactionspermitted map of a provider registration (0 = not allowed, 1 = allowed). */
export interface AgentActionsPermitted {
  release?: 0 | 1;
  hold?: 0 | 1;
  transferToAgent?: 0 | 1;
  transferToRoute?: 0 | 1;
}

/**
 * The spec's rule: release is allowed unless set to 0; every other operation only when set to 1;
 * permitting hold also permits retrieve.
 */
export function effectivePermissions(permitted: AgentActionsPermitted): EffectivePermissions {
  const hold = permitted.hold === 1;
  return {
    release: permitted.release !== 0,
    hold,
    retrieve: hold,
    transferToAgent: permitted.transferToAgent === 1,
    transferToRoute: permitted.transferToRoute === 1,
  };
}

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
  const effective = permissions ?? effectivePermissions({});
  if (!effective[operation]) {
    throw routingError('AGENT.ACTION_FORBIDDEN', `The provider ${provider} does not permit ${operation}`, [], {
      operation,
      provider,
    });
  }
}
