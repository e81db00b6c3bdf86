import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** A token issuer for tests of a single service: a real key pair whose JWKS is served over local HTTP. */
export interface TestIssuer {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Signs an access token for an account with the given scopes (space-separated or array). */
  token(p: {
    accountId: string;
    scopes: string | string[];
    clientId?: string;
    expiresIn?: string;
    v0?: boolean;
    agentId?: string;
  }): Promise<string>;
  /** Auth settings for a service under test (AUTH_* variables). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts a {@link TestIssuer} on 127.0.0.1 with a random port. */
export async function startTestIssuer(issuer = 'cc-suite', audience = 'cc-suite-api'): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'test-1', alg: 'ES256', use: 'sig' }] });
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  return {
    issuer,
    audience,
    jwksUrl,
    env: { AUTH_ISSUER: issuer, AUTH_AUDIENCE: audience, AUTH_JWKS_URL: jwksUrl },
    token: (p) =>
      new SignJWT({
        account_id: p.accountId,
        scope: Array.isArray(p.scopes) ? p.scopes.join(' ') : p.scopes,
        ...(p.v0 ? { cc_flavour: 'v0' } : {}),
        ...(p.agentId ? { agent_id: p.agentId } : {}),
      })
        .setProtectedHeader({ alg: 'ES256', kid: 'test-1' })
        .setIssuer(issuer)
        .setAudience(audience)
        .setSubject(p.clientId ?? 'test-client')
        .setIssuedAt()
        .setExpirationTime(p.expiresIn ?? '1h')
        .sign(privateKey),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
