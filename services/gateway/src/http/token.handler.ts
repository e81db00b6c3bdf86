import type { Logger } from '@cc/kit';
import express, { type Request, type Response, Router } from 'express';
import type { KeyRing } from '../auth/key-ring';
import type { TokenIssuer } from '../auth/token-issuer';
import { gatewayError, gatewayErrors } from '../domain/errors';
import {
  credentialParams,
  type FormFields,
  OAuthError,
  parseTokenRequest,
  parseV0TokenRequest,
} from '../domain/token-request';
import type { ClientsService } from '../identity/clients.service';
import type { V0CredentialsService } from '../identity/v0-credentials.service';
import { declaresBody } from './guard.middleware';
import type { TokenAttemptLimiter } from './rate-limit';

/** What the token endpoints need. */
export interface TokenRoutesDeps {
  issuer?: TokenIssuer;
  keyRing?: KeyRing;
  clients: ClientsService;
  v0: V0CredentialsService;
  attempts: TokenAttemptLimiter;
  logger: Logger;
  /** Set when an external OIDC issuer replaces the built-in one: the token endpoints answer 404. */
  externalIssuer?: string;
}

const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });

function sendOAuthError(res: Response, err: OAuthError): void {
  if (err.status === 401) {
    res.setHeader('WWW-Authenticate', err.basic ? 'Basic realm="cc-suite", charset="UTF-8"' : 'Basic realm="cc-suite"');
  }
  res.status(err.status).type('application/json').send(JSON.stringify(err.body()));
}

/** The body must be a form (RFC 6749 §4.4.2), credentials never in the URL; parsed here, not by the kit. */
async function readForm(req: Request, res: Response): Promise<FormFields> {
  const inQuery = Object.keys(req.query ?? {}).filter((k) => credentialParams.includes(k));
  if (inQuery.length) {
    throw new OAuthError('invalid_request', `Send ${inQuery.join(', ')} in the form body, not in the URL`);
  }
  if (declaresBody(req) && !req.is('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 'The body must be application/x-www-form-urlencoded');
  }
  await new Promise<void>((resolve, reject) => form(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  return (req.body ?? {}) as FormFields;
}

/**
 * `POST /Auth/connect/token` (client credentials, one scope per token), `POST /v0/oauth2/token` (HTTP Basic
 * accountKey:apiToken, one-hour v0 tokens) and `GET /.well-known/jwks.json`. Errors are RFC 6749 bodies; attempts
 * are limited per IP and failures per client id (429 problem+json).
 */
export function tokenRoutes(deps: TokenRoutesDeps): Router {
  const r = Router({ caseSensitive: false });

  const guardAttempt = async (req: Request): Promise<void> => {
    const wait = await deps.attempts.attempt(req.ip ?? 'unknown');
    if (wait !== undefined) throw tooMany(wait);
  };
  const tooMany = (wait: number) =>
    gatewayError('REQUEST.RATE_LIMITED', `Too many token requests; retry after ${wait} s`, [], { retryAfter: wait });
  const disabled = () =>
    gatewayError(
      gatewayErrors.TOKEN_ENDPOINT_DISABLED,
      `Tokens are issued by the external issuer ${deps.externalIssuer}; this endpoint is disabled`,
    );

  r.post('/Auth/connect/token', async (req, res) => {
    if (deps.externalIssuer || !deps.issuer) throw disabled();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    await guardAttempt(req);
    try {
      const request = parseTokenRequest(await readForm(req, res), req.header('authorization'));
      const wait = await deps.attempts.blocked(request.clientId);
      if (wait !== undefined) throw tooMany(wait);
      const client = await deps.clients.authenticate(request.clientId, request.clientSecret);
      if (!client) {
        await deps.attempts.failed(request.clientId);
        req.log?.warn({ clientId: request.clientId }, 'token request with unknown client or wrong secret');
        throw new OAuthError('invalid_client', 'Unknown client or wrong secret', request.viaBasic);
      }
      await deps.attempts.succeeded(request.clientId);
      if (!client.scopes.includes(request.scope)) {
        throw new OAuthError('invalid_scope', `The client may not request the scope ${request.scope}`);
      }
      const token = await deps.issuer.accessToken({
        accountId: client.accountId,
        clientId: client._id,
        scope: request.scope,
      });
      req.log?.info({ clientId: client._id, accountId: client.accountId, scope: request.scope }, 'token issued');
      res.status(200).json(token);
    } catch (err) {
      if (err instanceof OAuthError) return sendOAuthError(res, err);
      throw err;
    }
  });

  r.post('/v0/oauth2/token', async (req, res) => {
    if (deps.externalIssuer || !deps.issuer) throw disabled();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    await guardAttempt(req);
    try {
      const request = parseV0TokenRequest(await readForm(req, res), req.header('authorization'));
      const wait = await deps.attempts.blocked(`v0:${request.clientId}`);
      if (wait !== undefined) throw tooMany(wait);
      const cred = await deps.v0.authenticate(request.clientId, request.clientSecret);
      if (!cred) {
        await deps.attempts.failed(`v0:${request.clientId}`);
        req.log?.warn({ accountKey: request.clientId }, 'v0 token request with unknown account key or wrong token');
        throw new OAuthError('invalid_client', 'Unknown account key or wrong API token', true);
      }
      await deps.attempts.succeeded(`v0:${request.clientId}`);
      const token = await deps.issuer.v0Token({ accountId: cred.accountId, accountKey: cred._id });
      req.log?.info({ accountKey: cred._id, accountId: cred.accountId }, 'v0 token issued');
      res.status(200).json(token);
    } catch (err) {
      if (err instanceof OAuthError) return sendOAuthError(res, err);
      throw err;
    }
  });

  r.get('/.well-known/jwks.json', (_req, res) => {
    if (deps.externalIssuer || !deps.keyRing) throw disabled();
    res.setHeader('Cache-Control', 'public, max-age=60');
    res.json(deps.keyRing.jwks());
  });

  return r;
}
