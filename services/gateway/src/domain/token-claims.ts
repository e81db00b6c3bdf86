import { randomUUID } from 'node:crypto';

/** Lifetime of API access tokens (contract: `expires_in` 7200). */
export const accessTokenSeconds = 7200;
/** Lifetime of v0 tokens (contract: one hour). */
export const v0TokenSeconds = 3600;
/** Scope of v0 tokens: the v0 statistics API only. */
export const v0Scope = 'v0';

/** Registered and private claims of an access token (RFC 9068 profile plus this suite's `account_id`). */
export interface AccessClaims {
  [claim: string]: unknown;
  sub: string;
  client_id: string;
  account_id: string;
  scope: string;
  jti: string;
  cc_flavour?: 'v0';
}

/** Claims of an API token for a client of an account, with exactly one scope. */
export function accessTokenClaims(p: { accountId: string; clientId: string; scope: string }): AccessClaims {
  return { sub: p.clientId, client_id: p.clientId, account_id: p.accountId, scope: p.scope, jti: randomUUID() };
}

/**
 * Claims of a v0 token: the subject is the account key (the v0 "client"), so a service can check the
 * `{accountKey}` of a /v0 path against it; `cc_flavour: v0` keeps it off every non-v0 path.
 */
export function v0TokenClaims(p: { accountId: string; accountKey: string }): AccessClaims {
  return {
    sub: p.accountKey,
    client_id: p.accountKey,
    account_id: p.accountId,
    scope: v0Scope,
    jti: randomUUID(),
    cc_flavour: 'v0',
  };
}
