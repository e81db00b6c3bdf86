import { limits, reservedHeaderNames } from '@cc/contracts';
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
  agentactionspermitted: Record<string, unknown>;
}

/** Bounds of provider headers (the contract's limits). */
export const headerLimits = {
  maxHeaders: limits.maxProviderHeaders,
  maxName: 100,
  maxValue: limits.maxHeaderValue,
} as const;

/** RFC 9110 token: the characters a header name (and an auth scheme) may contain. */
const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII and tab: what a header value may carry (no CR, LF, NUL or other controls; no non-ASCII). */
const fieldValue = /^[\t\x20-\x7E]*$/;
/** `<type> <credentials>`: an auth scheme token, one space, then credentials. */
const authorization = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ [^\s]/;
const reserved = new RegExp(`^(?:${reservedHeaderNames.join('|')})$`, 'i');

const escapePointer = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface RawHeader {
  name: unknown;
  value: unknown;
  namePointer: string;
  valuePointer: string;
}

function rawHeaders(headers: RegisterBody['headers'], errors: FieldError[]): RawHeader[] {
  if (headers === undefined) return [];
  if (Array.isArray(headers)) {
    return headers.map((h, i) => ({
      name: h?.key,
      value: h?.value,
      namePointer: `/headers/${i}/key`,
      valuePointer: `/headers/${i}/value`,
    }));
  }
  if (headers !== null && typeof headers === 'object') {
    return Object.entries(headers).map(([name, value]) => ({
      name,
      value,
      namePointer: `/headers/${escapePointer(name)}`,
      valuePointer: `/headers/${escapePointer(name)}`,
    }));
  }
  errors.push({ pointer: '/headers', message: 'headers must be an object or an array' });
  return [];
}

/**
 * Checks the header rules (names are RFC 9110 tokens of at most 100 characters, not set by the notifier
 * itself, unique case-insensitively; values printable ASCII of at most 4096 characters; Authorization is
 * `<type> <credentials>`; at most 20) and returns them as a list. Messages never contain a header value.
 */
export function normalizeHeaders(headers: RegisterBody['headers']): ProviderHeader[] {
  const errors: FieldError[] = [];
  const raw = rawHeaders(headers, errors);
  if (raw.length > headerLimits.maxHeaders) {
    errors.push({ pointer: '/headers', message: `headers must have at most ${headerLimits.maxHeaders} entries` });
  }
  const seen = new Map<string, string>();
  const out: ProviderHeader[] = [];
  for (const h of raw) {
    const before = errors.length;
    if (typeof h.name !== 'string' || !token.test(h.name)) {
      errors.push({
        pointer: h.namePointer,
        message: "header name must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)",
      });
    } else if (h.name.length > headerLimits.maxName) {
      errors.push({
        pointer: h.namePointer,
        message: `header name must be at most ${headerLimits.maxName} characters`,
      });
    } else if (reserved.test(h.name)) {
      errors.push({
        pointer: h.namePointer,
        message: `header ${h.name} is set by the service and cannot be registered`,
      });
    } else if (seen.has(h.name.toLowerCase())) {
      errors.push({
        pointer: h.namePointer,
        message: `header ${h.name} is given twice (as ${seen.get(h.name.toLowerCase())}); header names are case-insensitive`,
      });
    }
    const label = typeof h.name === 'string' && token.test(h.name) ? h.name : 'header value';
    if (typeof h.value !== 'string') {
      errors.push({ pointer: h.valuePointer, message: `${label} must be a string` });
    } else if (h.value.length > headerLimits.maxValue) {
      errors.push({ pointer: h.valuePointer, message: `${label} must be at most ${headerLimits.maxValue} characters` });
    } else if (!fieldValue.test(h.value)) {
      errors.push({
        pointer: h.valuePointer,
        message: `${label} must contain only printable ASCII characters or tabs (no CR, LF, NUL or other control characters)`,
      });
    } else if (typeof h.name === 'string' && h.name.toLowerCase() === 'authorization' && !authorization.test(h.value)) {
      errors.push({
        pointer: h.valuePointer,
        message: `${label} must have the form "<type> <credentials>", e.g. "Bearer <token>" or "Basic <credentials>"`,
      });
    }
    if (errors.length === before) {
      seen.set((h.name as string).toLowerCase(), h.name as string);
      out.push({ name: h.name as string, value: h.value as string });
    }
  }
  if (errors.length)
    throw new AppError('REQUEST.VALIDATION', `${errors.length} violation(s) of the request rules`, errors);
  return out;
}

/**
 * Turns a Register body into a {@link ProviderInput}: headers normalized and checked, permissions computed.
 * The endpoint's syntax and reachability are checked separately (see `endpoint-policy`), as they need DNS.
 */
export function normalizeSettings(body: RegisterBody): ProviderInput {
  const errors: FieldError[] = [];
  let headers: ProviderHeader[] = [];
  let permissions: EffectivePermissions | undefined;
  try {
    headers = normalizeHeaders(body.headers);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    errors.push(...err.errors);
  }
  try {
    permissions = effectivePermissions(body.agentactionspermitted);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    errors.push(...err.errors);
  }
  if (errors.length || !permissions) {
    throw new AppError('REQUEST.VALIDATION', `${errors.length} violation(s) of the request rules`, errors);
  }
  return {
    name: body.provider,
    endpoint: body.endpoint ?? null,
    headers,
    agentactionspermitted: body.agentactionspermitted as AgentActionsPermitted,
    permissions,
  };
}
