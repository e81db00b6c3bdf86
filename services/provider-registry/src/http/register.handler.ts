import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import type { ProviderService } from '../app/provider.service';
import { checkEndpoint, type EndpointAllowlist, type ResolveHost } from '../domain/endpoint-policy';
import { normalizeSettings, type RegisterBody } from '../domain/provider-settings';
import { toProviderView } from './provider.view';

/** What the Register handler needs. */
export interface RegisterDeps {
  providers: ProviderService;
  allowlist: EndpointAllowlist;
  resolve: ResolveHost;
}

/**
 * POST /interactions/Register: checks every rule (schema already applied, then headers, permissions and the
 * endpoint's public reachability) before writing anything, then creates (201, with the signing secret shown
 * this once) or replaces (200) the provider. The body echoes the settings with header values redacted.
 */
export function registerHandler(deps: RegisterDeps): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const input = normalizeSettings(req.body as RegisterBody);
    if (input.endpoint !== null)
      await checkEndpoint(input.endpoint, { allowlist: deps.allowlist, resolve: deps.resolve });
    const result = await deps.providers.register(accountId, input, res.locals.traceparent as string | undefined);
    req.log.info(
      {
        accountId,
        provider: input.name,
        version: result.version,
        created: result.created,
        headerCount: input.headers.length,
      },
      result.created ? 'provider registered' : 'provider replaced',
    );
    res.setHeader('Cache-Control', 'no-store');
    res.status(result.created ? 201 : 200).json(toProviderView(result.record, result.signingSecret));
  };
}
