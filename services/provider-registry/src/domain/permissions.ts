import type { EffectivePermissions } from '@cc/contracts';
import { AppError } from '@cc/kit/errors';

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
 * `hold` implies `retrieve`. Unknown operation names and values other than 0/1 are refused.
 */
export function effectivePermissions(given: Record<string, unknown>): EffectivePermissions {
  const errors = Object.entries(given).flatMap(([op, value]) => {
    if (!(operations as readonly string[]).includes(op)) {
      return [
        {
          pointer: `/agentactionspermitted/${op}`,
          message: `${op} is not an operation (allowed: ${operations.join(', ')})`,
        },
      ];
    }
    return value === 0 || value === 1
      ? []
      : [{ pointer: `/agentactionspermitted/${op}`, message: `${op} must be one of: 0, 1` }];
  });
  if (errors.length)
    throw new AppError('REQUEST.VALIDATION', `${errors.length} violation(s) of the request rules`, errors);
  const hold = given.hold === 1;
  return {
    release: given.release !== 0,
    hold,
    retrieve: hold,
    transferToAgent: given.transferToAgent === 1,
    transferToRoute: given.transferToRoute === 1,
  };
}
