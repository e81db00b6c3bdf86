import { apiVersions, invocation } from '@cc/contracts';
import { negotiateVersion, type Principal, principalOf, requireAuth, validateRequest } from '@cc/kit';
import type { Express, RequestHandler } from 'express';
import type { InvokeService } from '../app/invoke.service';
import type { RawInteraction } from '../domain/invocation';

/** POST /interactions/Invoke (and /interactions/invoke): 202 with one result per request object. */
export function mountInvoke(app: Express, verify: (token: string) => Promise<Principal>, invoke: InvokeService): void {
  const handler: RequestHandler = async (req, res) => {
    const { accountId } = principalOf(res);
    const body = req.body as { provider?: string; requests: RawInteraction[] };
    const results = await invoke.invoke(accountId, body, res.locals.traceparent as string | undefined);
    res.status(202).json({ results });
  };
  const chain = [
    requireAuth(verify, 'interactions:write'),
    negotiateVersion(apiVersions.interactions),
    validateRequest({ body: invocation }),
    handler,
  ];
  app.post('/interactions/Invoke', ...chain);
  app.post('/interactions/invoke', ...chain);
}
