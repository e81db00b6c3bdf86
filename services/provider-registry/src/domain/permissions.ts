import type { EffectivePermissions } from '@cc/contracts';

/** The operations a provider can permit, as `agentactionspermitted` names them. */
export const operations = ['release', 'hold', 'transferToAgent', 'transferToRoute'] as const;

/** One operation name of `agentactionspermitted`. */
export type Operation = (typeof operations)[number];

/** `agentactionspermitted` as registered: operation → 0 (not allowed) or 1 (allowed); omitted operations use the defaults. */
export type AgentActionsPermitted = Partial<Record<Operation, 0 | 1>>;

/** What agents may do with the provider's interactions, computed once at registration (the contracts' type). */
export type { EffectivePermissions };

/**
 * Applies the spec's rule: `release` is allowed unless given as 0; every other operation only when given as 1;
 * `hold` implies `retrieve`. Which names and values are allowed is the contract's schema (`agentActionsPermitted`),
 * applied before this runs: this only computes.
 */
export function effectivePermissions(given: AgentActionsPermitted): EffectivePermissions {
  const hold = given.hold === 1;
  return {
    release: given.release !== 0,
    hold,
    retrieve: hold,
    transferToAgent: given.transferToAgent === 1,
    transferToRoute: given.transferToRoute === 1,
  };
}
