import { randomBytes } from 'node:crypto';
import { EagerPublisher } from '@cc/bus';
import { createSecretBox, createTokenVerifier, EndpointAllowlist } from '@cc/kit';
import { type Runtime, startRuntime } from '@cc/runtime';
import { ProviderService } from './app/provider.service';
import { dnsResolver } from './clients/dns.client';
import type { Config } from './config';
import { formatSigningSecret, signingSecretBytes } from './domain/signing-secret';
import { producedTopics } from './events/topics';
import { mountRoutes } from './http/routes';
import { providerModels } from './store/provider.model';
import { ProviderRepository } from './store/provider.repository';

/**
 * Starts the provider registry: keys and allowlist (fail fast), store and Kafka, topics, the providers
 * collection with its outbox relay, then HTTP. Returns the runtime (tests call `stop()`).
 */
export async function startService(
  config: Config,
  opts: { logDestination?: NodeJS.WritableStream; exitOnShutdown?: boolean } = {},
): Promise<Runtime> {
  const box = createSecretBox(config.CC_ENCRYPTION_KEYS);
  const allowlist = EndpointAllowlist.parse(config.ENDPOINT_ALLOWLIST);
  const runtime = await startRuntime({
    name: 'provider-registry',
    config,
    ...(opts.logDestination ? { logDestination: opts.logDestination } : {}),
    ...(opts.exitOnShutdown !== undefined ? { exitOnShutdown: opts.exitOnShutdown } : {}),
  });
  try {
    await runtime.ensureTopics(producedTopics);
    const { Provider } = providerModels(runtime.conn);
    const relay = await runtime.useModels([Provider], [Provider]);
    const providers = new ProviderService({
      repository: new ProviderRepository(Provider),
      publisher: new EagerPublisher({ relay, logger: runtime.logger.child({ component: 'publisher' }) }),
      outbox: Provider,
      box,
      newSecret: () => formatSigningSecret(randomBytes(signingSecretBytes)),
      graceSeconds: config.SIGNING_SECRET_GRACE_S,
    });
    const verify = createTokenVerifier({
      issuer: config.AUTH_ISSUER,
      audience: config.AUTH_AUDIENCE,
      jwks: config.AUTH_JWKS_URL,
      accountClaim: config.AUTH_ACCOUNT_CLAIM,
    });
    if (allowlist.entries.length) {
      runtime.logger.warn(
        { allowlist: allowlist.entries },
        'ENDPOINT_ALLOWLIST is set: endpoints on these hosts and ranges pass the public-address rule (development only)',
      );
    }
    await runtime.listen((app) =>
      mountRoutes(app, { verify, providers, allowlist, resolve: dnsResolver(config.DNS_TIMEOUT_MS) }),
    );
    return runtime;
  } catch (err) {
    await runtime.stop().catch(() => undefined);
    throw err;
  }
}
