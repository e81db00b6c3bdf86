import {
  accountCreate,
  adminListQuery,
  apiClientCreate,
  apiVersions,
  featureFlagsPatch,
  type JsonSchema,
} from '@cc/contracts';
import { AppError, negotiateVersion, principalOf, validateRequest } from '@cc/kit';
import { type RequestHandler, Router } from 'express';
import type { FeatureFlags } from '../domain/feature-flags';
import { type AccountsService, accountView } from '../identity/accounts.service';
import { type ClientsService, clientView } from '../identity/clients.service';
import type { V0CredentialsService } from '../identity/v0-credentials.service';
import type { Page } from '../store/paging';

/** What the gateway's own admin routes need. */
export interface AdminRoutesDeps {
  accounts: AccountsService;
  clients: ClientsService;
  v0: V0CredentialsService;
  /** True when the client may manage every account. */
  isPlatformAdmin(accountId: string, clientId: string): Promise<boolean>;
}

const clientIdParams: JsonSchema = {
  type: 'object',
  required: ['clientId'],
  properties: { clientId: { type: 'string', minLength: 1, maxLength: 200 } },
  additionalProperties: false,
};
const accountKeyParams: JsonSchema = {
  type: 'object',
  required: ['accountKey'],
  properties: { accountKey: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' } },
  additionalProperties: false,
};

/** The paging envelope `{meta, items}`. */
function envelope<T>(p: Page<unknown>, items: T[], page: number, limit: number) {
  return {
    meta: { page, count: items.length, pageCount: Math.ceil(p.totalCount / limit), totalCount: p.totalCount },
    items,
  };
}

const paging = (query: unknown) => {
  const q = query as { page: number; limit: number };
  return { page: q.page, limit: q.limit };
};

/**
 * The admin API the gateway owns (libs/contracts admin document): the token's account, its feature flags, API
 * clients and v0 credentials; every account for platform-admin clients. Scope `admin` is checked before this.
 */
export function adminRoutes(deps: AdminRoutesDeps): Router {
  const r = Router();
  r.use(
    ['/admin/accounts', '/admin/account', '/admin/clients', '/admin/v0-credentials'],
    negotiateVersion(apiVersions.admin),
  );

  const platformAdmin: RequestHandler = async (_req, res, next) => {
    const p = principalOf(res);
    if (!(await deps.isPlatformAdmin(p.accountId, p.clientId))) {
      throw new AppError('AUTH.FORBIDDEN', 'Managing accounts requires a platform-admin client');
    }
    next();
  };

  r.get('/admin/accounts', platformAdmin, validateRequest({ query: adminListQuery }), async (req, res) => {
    const { page, limit } = paging(req.query);
    const p = await deps.accounts.list(page, limit);
    res.json(
      envelope(
        p,
        p.items.map((a) => accountView(a)),
        page,
        limit,
      ),
    );
  });

  r.post('/admin/accounts', platformAdmin, validateRequest({ body: accountCreate }), async (req, res) => {
    const body = req.body as { accountId: string; name: string; featureFlags?: Partial<FeatureFlags> };
    const view = await deps.accounts.create({ ...body, traceparent: String(res.locals.traceparent) });
    // A new account needs a first admin client to manage itself; its secret is shown this once.
    const admin = await deps.clients.create({
      accountId: view.accountId,
      name: 'Initial admin client',
      scopes: ['admin'],
    });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).json({
      ...view,
      adminClient: { clientId: admin.clientId, clientSecret: admin.clientSecret, scopes: admin.scopes },
    });
  });

  r.get('/admin/account', async (_req, res) => {
    res.json(accountView(await deps.accounts.get(principalOf(res).accountId)));
  });

  r.get('/admin/account/feature-flags', async (_req, res) => {
    res.json(accountView(await deps.accounts.get(principalOf(res).accountId)).featureFlags);
  });

  r.patch('/admin/account/feature-flags', validateRequest({ body: featureFlagsPatch }), async (req, res) => {
    const flags = await deps.accounts.patchFlags(
      principalOf(res).accountId,
      req.body as Partial<FeatureFlags>,
      String(res.locals.traceparent),
    );
    res.json(flags);
  });

  r.get('/admin/clients', validateRequest({ query: adminListQuery }), async (req, res) => {
    const { page, limit } = paging(req.query);
    const p = await deps.clients.list(principalOf(res).accountId, page, limit);
    res.json(envelope(p, p.items.map(clientView), page, limit));
  });

  r.post('/admin/clients', validateRequest({ body: apiClientCreate }), async (req, res) => {
    const body = req.body as { name: string; scopes: string[] };
    const created = await deps.clients.create({ accountId: principalOf(res).accountId, ...body });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).location(`/admin/clients/${created.clientId}`).json(created);
  });

  r.get('/admin/clients/:clientId', validateRequest({ params: clientIdParams }), async (req, res) => {
    res.json(clientView(await deps.clients.get(principalOf(res).accountId, String(req.params.clientId))));
  });

  r.delete('/admin/clients/:clientId', validateRequest({ params: clientIdParams }), async (req, res) => {
    await deps.clients.delete(principalOf(res).accountId, String(req.params.clientId));
    res.status(204).end();
  });

  r.get('/admin/v0-credentials', validateRequest({ query: adminListQuery }), async (req, res) => {
    const { page, limit } = paging(req.query);
    const p = await deps.v0.list(principalOf(res).accountId, page, limit);
    res.json(envelope(p, p.items, page, limit));
  });

  r.post('/admin/v0-credentials', async (_req, res) => {
    const created = await deps.v0.create({ accountId: principalOf(res).accountId });
    res.setHeader('Cache-Control', 'no-store');
    res.status(201).location(`/admin/v0-credentials/${created.accountKey}`).json(created);
  });

  r.delete('/admin/v0-credentials/:accountKey', validateRequest({ params: accountKeyParams }), async (req, res) => {
    await deps.v0.delete(principalOf(res).accountId, String(req.params.accountKey));
    res.status(204).end();
  });

  return r;
}
