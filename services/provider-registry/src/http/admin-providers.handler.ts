import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import type { ProviderService } from '../app/provider.service';
import { providerError } from '../domain/errors';
import { toProviderView } from './provider.view';

const notFound = (name: string) =>
  providerError('PROVIDER.NOT_FOUND', `No provider named ${JSON.stringify(name)} is registered for this account`);

const traceOf = (res: { locals: Record<string, unknown> }) => res.locals.traceparent as string | undefined;

/** GET /admin/providers: the account's providers by name, paged, header values redacted. */
export function listProvidersHandler(providers: ProviderService): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const { page, limit } = req.query as unknown as { page: number; limit: number };
    const { items, total } = await providers.list(accountId, page, limit);
    res.json({
      meta: { page, count: items.length, pageCount: Math.ceil(total / limit), totalCount: total },
      items: items.map((r) => toProviderView(r)),
    });
  };
}

/** GET /admin/providers/{name}: one provider, header values redacted; 404 for another account's. */
export function getProviderHandler(providers: ProviderService): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const name = req.params.name as string;
    const record = await providers.get(accountId, name);
    if (!record) throw notFound(name);
    res.json(toProviderView(record));
  };
}

/** DELETE /admin/providers/{name}: emits provider.deleted (routing then refuses the name); 204. */
export function deleteProviderHandler(providers: ProviderService): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const name = req.params.name as string;
    if (!(await providers.delete(accountId, name, traceOf(res)))) throw notFound(name);
    req.log.info({ accountId, provider: name }, 'provider deleted');
    res.status(204).end();
  };
}

/** POST /admin/providers/{name}/signing-secret: a new secret, shown once; the previous one signs for the grace period. */
export function rotateSigningSecretHandler(providers: ProviderService): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const name = req.params.name as string;
    const rotated = await providers.rotateSigningSecret(accountId, name, traceOf(res));
    if (!rotated) throw notFound(name);
    req.log.info(
      { accountId, provider: name, previousValidUntil: rotated.previousValidUntil },
      'signing secret rotated',
    );
    res.setHeader('Cache-Control', 'no-store');
    res.json({ signingSecret: rotated.signingSecret, previousValidUntil: rotated.previousValidUntil.toISOString() });
  };
}
