import { AppError, type FieldError } from '@cc/kit/errors';
import { type AgentActionsPermitted, type EffectivePermissions, effectivePermissions } from './permissions';

/** One header sent with every notification to the provider's endpoint. */
export interface ProviderHeader {
  name: string;
  value: string;
}

/** A registration after every rule was checked: headers in one form, permissions computed. */
export interface ProviderInput {
  name: string;
  endpoint: string | null;
  headers: ProviderHeader[];
  agentactionspermitted: AgentActionsPermitted;
  permissions: EffectivePermissions;
}

/** The body of POST /interactions/Register as it arrives (already checked against the contract's schema). */
export interface RegisterBody {
  provider: string;
  endpoint?: string | null;
  headers?: Record<string, string> | { key: string; value: string }[];
  agentactionspermitted: AgentActionsPermitted;
}

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Turns the headers (a map or a `{key, value}` list) into one list, refusing a name given twice in different
 * letter cases. Every other header rule (names, reserved names, values, Authorization's form, bounds) is the
 * contract's JSON Schema, applied before this runs: what a schema cannot say is checked here, nothing more.
 * Messages never contain a header value.
 */
export function normalizeHeaders(headers: RegisterBody['headers']): ProviderHeader[] {
  if (headers === undefined) return [];
  const list = Array.isArray(headers)
    ? headers.map((h, i) => ({ name: h.key, value: h.value, pointer: `/headers/${i}/key` }))
    : Object.entries(headers).map(([name, value]) => ({ name, value, pointer: `/headers/${escapePointer(name)}` }));
  const errors: FieldError[] = [];
  const seen = new Map<string, string>();
  const out: ProviderHeader[] = [];
  for (const h of list) {
    const first = seen.get(h.name.toLowerCase());
    if (first !== undefined) {
      errors.push({
        pointer: h.pointer,
        message: `header ${h.name} is given twice (as ${first}); header names are case-insensitive`,
      });
      continue;
    }
    seen.set(h.name.toLowerCase(), h.name);
    out.push({ name: h.name, value: h.value });
  }
  if (errors.length)
    throw new AppError('REQUEST.VALIDATION', `${errors.length} violation(s) of the request rules`, errors);
  return out;
}

/**
 * Turns a Register body into a {@link ProviderInput}: headers normalized and checked, permissions computed.
 * The body already passed the contract's schema (permission names and 0/1 values are its rule, not this code's).
 * The endpoint's syntax and reachability are checked separately (see `endpoint-policy`), as they need DNS.
 */
export function normalizeSettings(body: RegisterBody): ProviderInput {
  return {
    name: body.provider,
    endpoint: body.endpoint ?? null,
    headers: normalizeHeaders(body.headers),
    agentactionspermitted: body.agentactionspermitted,
    permissions: effectivePermissions(body.agentactionspermitted),
  };
}
