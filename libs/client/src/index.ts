// @cc/client: the suite's typed SDK. Types generated from the contracts' OpenAPI documents (src/generated), fetch by
// openapi-fetch, tokens by client credentials, errors as typed exceptions, paging helpers.

export { type ApiClients, type CcClient, type CreateClientOptions, createClient, type Scope } from './client';
export {
  ApiError,
  errorFromResponse,
  type FieldError,
  OAuthError,
  type ProblemBody,
  ProblemError,
  ScopeError,
} from './errors';
export type { ApiPaths } from './generated/apis';
export { collectPages, ok, type Page, pages, pollWindow } from './paging';
export { TokenSource, type TokenSourceOptions } from './tokens';
