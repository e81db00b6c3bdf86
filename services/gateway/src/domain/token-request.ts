import { scopes } from '@cc/contracts';

/** RFC 6749 §5.2 error codes the token endpoints answer. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope';

/** An RFC 6749 error: `invalid_client` is a 401 (with `WWW-Authenticate` when Basic was used), the rest 400. */
export class OAuthError extends Error {
  readonly status: number;

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** The client tried HTTP Basic: a 401 then challenges Basic (RFC 6749 §5.2). */
    readonly basic = false,
  ) {
    super(description);
    this.name = 'OAuthError';
    this.status = error === 'invalid_client' ? 401 : 400;
  }

  /** The RFC 6749 body (never a secret). */
  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/** Form fields as a urlencoded parser gives them (a repeated field is an array). */
export type FormFields = Record<string, string | string[] | undefined>;

/** Client credentials, from the body or from HTTP Basic. */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  viaBasic: boolean;
}

/** A valid client-credentials request, before the client is authenticated. */
export interface TokenRequest extends ClientCredentials {
  scope: string;
}

/** One form field: absent, or exactly one value (RFC 6749 §3.2: parameters must not repeat). */
function single(form: FormFields, name: string): string | undefined {
  const v = form[name];
  if (Array.isArray(v)) throw new OAuthError('invalid_request', `The parameter ${name} is repeated`);
  return v === undefined || v === '' ? undefined : v;
}

/**
 * Parses an `Authorization: Basic` header into id and secret, form-urldecoded as RFC 6749 §2.3.1 requires;
 * undefined when the header is not Basic.
 */
export function parseBasic(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header || !/^basic /i.test(header)) return undefined;
  const encoded = header.slice(6).trim();
  const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(encoded) ? Buffer.from(encoded, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 1) throw new OAuthError('invalid_client', 'The Basic credentials are malformed', true);
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw new OAuthError('invalid_client', 'The Basic credentials are malformed', true);
  }
}

/** Checks `grant_type`: required, and only client_credentials is served. */
function checkGrant(form: FormFields, required: boolean): void {
  const grant = single(form, 'grant_type');
  if (!grant) {
    if (required) throw new OAuthError('invalid_request', 'grant_type is required');
    return;
  }
  if (grant !== 'client_credentials') {
    throw new OAuthError('unsupported_grant_type', 'Only the client_credentials grant is supported');
  }
}

/**
 * Validates a `POST /Auth/connect/token` request: client credentials in the body or HTTP Basic (not both),
 * grant client_credentials, exactly one known scope. Throws {@link OAuthError}.
 */
export function parseTokenRequest(form: FormFields, authorization: string | undefined): TokenRequest {
  const basic = parseBasic(authorization);
  checkGrant(form, true);
  const bodyId = single(form, 'client_id');
  const bodySecret = single(form, 'client_secret');
  if (basic && bodySecret !== undefined) {
    throw new OAuthError('invalid_request', 'Use one client authentication method: HTTP Basic or the form body', true);
  }
  if (basic && bodyId !== undefined && bodyId !== basic.id) {
    throw new OAuthError('invalid_request', 'client_id differs from the HTTP Basic user', true);
  }
  const clientId = basic?.id ?? bodyId;
  const clientSecret = basic?.secret ?? bodySecret;
  if (!clientId || !clientSecret) {
    throw new OAuthError('invalid_client', 'Client authentication is required (client_id and client_secret)');
  }
  const scope = single(form, 'scope');
  if (!scope) throw new OAuthError('invalid_scope', 'Exactly one scope is required');
  const requested = scope.split(' ').filter(Boolean);
  if (requested.length !== 1) throw new OAuthError('invalid_scope', 'Exactly one scope per token is allowed');
  const [only] = requested as [string];
  if (!Object.hasOwn(scopes, only)) {
    throw new OAuthError('invalid_scope', `Unknown scope ${only}; known: ${Object.keys(scopes).join(', ')}`);
  }
  return { clientId, clientSecret, viaBasic: Boolean(basic), scope: only };
}

/** Validates a `POST /v0/oauth2/token` request: HTTP Basic `accountKey:apiToken`, optional grant client_credentials. */
export function parseV0TokenRequest(form: FormFields, authorization: string | undefined): ClientCredentials {
  const basic = parseBasic(authorization);
  if (!basic) throw new OAuthError('invalid_client', 'HTTP Basic accountKey:apiToken is required', true);
  checkGrant(form, false);
  return { clientId: basic.id, clientSecret: basic.secret, viaBasic: true };
}

/** Query parameters that must never carry credentials (RFC 6749 §2.3.1: not in the request URI). */
export const credentialParams = ['client_secret', 'client_id', 'grant_type', 'scope'];
