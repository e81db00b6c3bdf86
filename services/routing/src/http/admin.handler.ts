import {
  adminListQuery,
  agentWrite,
  apiVersions,
  idParams,
  interactionPlan,
  type JsonSchema,
  nameParams,
  route,
  skill,
} from '@cc/contracts';
import { negotiateVersion, type Principal, principalOf, requireAuth, validateRequest } from '@cc/kit';
import { type Express, type RequestHandler, Router } from 'express';
import type { AdminService, AgentWrite, Paging } from '../app/admin.service';
import type { Plan } from '../domain/types';

type Handler = (
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  accountId: string,
) => Promise<void>;

const h =
  (fn: Handler): RequestHandler =>
  async (req, res) => {
    await fn(req, res, principalOf(res).accountId);
  };

const noContent =
  (fn: (req: Parameters<RequestHandler>[0], accountId: string) => Promise<void>): RequestHandler =>
  async (req, res) => {
    await fn(req, principalOf(res).accountId);
    res.status(204).end();
  };

/** The routing part of the admin API (scope `admin`): skills, routes, interaction plans, agents, traces. */
export function mountAdmin(app: Express, verify: (token: string) => Promise<Principal>, admin: AdminService): void {
  const r = Router();
  r.use(requireAuth(verify, 'admin'), negotiateVersion(apiVersions.admin));
  const list = validateRequest({ query: adminListQuery });
  const byName = (body?: JsonSchema) => validateRequest({ params: nameParams, ...(body ? { body } : {}) });
  const byId = (body?: JsonSchema) => validateRequest({ params: idParams, ...(body ? { body } : {}) });
  const paging = (req: Parameters<RequestHandler>[0]) => req.query as unknown as Paging;
  const name = (req: Parameters<RequestHandler>[0]) => req.params.name as string;
  const id = (req: Parameters<RequestHandler>[0]) => req.params.id as string;

  r.get(
    '/skills',
    list,
    h(async (req, res, a) => void res.json(await admin.listSkills(a, paging(req)))),
  );
  r.put(
    '/skills/:name',
    byName(skill),
    h(async (req, res, a) => {
      const { outcome, view } = await admin.putSkill(a, name(req), req.body);
      res.status(outcome === 'created' ? 201 : 200).json(view);
    }),
  );
  r.delete(
    '/skills/:name',
    byName(),
    noContent(async (req, a) => admin.deleteSkill(a, name(req))),
  );

  r.get(
    '/routes',
    list,
    h(async (req, res, a) => void res.json(await admin.listRoutes(a, paging(req)))),
  );
  r.get(
    '/routes/:name',
    byName(),
    h(async (req, res, a) => void res.json(await admin.getRoute(a, name(req)))),
  );
  r.put(
    '/routes/:name',
    byName(route),
    h(async (req, res, a) => {
      const { outcome, view } = await admin.putRoute(a, name(req), req.body);
      res.status(outcome === 'created' ? 201 : 200).json(view);
    }),
  );
  r.delete(
    '/routes/:name',
    byName(),
    noContent(async (req, a) => admin.deleteRoute(a, name(req))),
  );

  r.get(
    '/interaction-plans',
    list,
    h(async (req, res, a) => void res.json(await admin.listPlans(a, paging(req)))),
  );
  r.get(
    '/interaction-plans/:name',
    byName(),
    h(async (req, res, a) => void res.json(await admin.getPlan(a, name(req)))),
  );
  r.put(
    '/interaction-plans/:name',
    byName(interactionPlan),
    h(async (req, res, a) => {
      const { outcome, view } = await admin.putPlan(
        a,
        name(req),
        req.body as { name: string; reportingGroup?: string; applets: Plan['applets'] },
      );
      res.status(outcome === 'created' ? 201 : 200).json(view);
    }),
  );
  r.delete(
    '/interaction-plans/:name',
    byName(),
    noContent(async (req, a) => admin.deletePlan(a, name(req))),
  );

  r.get(
    '/agents',
    list,
    h(async (req, res, a) => void res.json(await admin.listAgents(a, paging(req)))),
  );
  r.post(
    '/agents',
    validateRequest({ body: agentWrite }),
    h(async (req, res, a) => void res.status(201).json(await admin.createAgent(a, req.body as AgentWrite))),
  );
  r.get(
    '/agents/:id',
    byId(),
    h(async (req, res, a) => void res.json(await admin.getAgent(a, id(req)))),
  );
  r.put(
    '/agents/:id',
    byId(agentWrite),
    h(async (req, res, a) => void res.json(await admin.replaceAgent(a, id(req), req.body as AgentWrite))),
  );
  r.delete(
    '/agents/:id',
    byId(),
    noContent(async (req, a) => admin.deleteAgent(a, id(req))),
  );

  r.get(
    '/interactions/:id/trace',
    byId(),
    h(async (req, res, a) => void res.json(await admin.trace(a, id(req)))),
  );

  app.use('/admin', r);
}
