import {
  agentInteractionParams,
  agentParams,
  apiVersions,
  emptyBody,
  type JsonSchema,
  offerParams,
  presenceUpdate,
  transferRequest,
} from '@cc/contracts';
import { negotiateVersion, type Principal, principalOf, requireAuth, validateRequest } from '@cc/kit';
import { type Express, type Request, type RequestHandler, type Response, Router } from 'express';
import type { DesktopService } from '../app/desktop.service';
import type { AgentRecord, Presence } from '../domain/types';

interface Call {
  accountId: string;
  agent: AgentRecord;
  traceparent: string | undefined;
  req: Request;
  res: Response;
}

/** The agent-desktop API (scope `agent`): presence, offers, and actions on the agent's interactions. */
export function mountAgentDesktop(
  app: Express,
  verify: (token: string) => Promise<Principal>,
  desktop: DesktopService,
): void {
  const r = Router();
  r.use(requireAuth(verify, 'agent'), negotiateVersion(apiVersions['agent-desktop']));
  const h =
    (fn: (c: Call) => Promise<void>): RequestHandler =>
    async (req, res) => {
      const principal = principalOf(res);
      const agent = await desktop.agent(principal.accountId, req.params.agentId as string, principal.agentId);
      await fn({
        accountId: principal.accountId,
        agent,
        traceparent: res.locals.traceparent as string | undefined,
        req,
        res,
      });
    };
  const agentOnly = validateRequest({ params: agentParams });
  const onOffer = validateRequest({ params: offerParams, body: emptyBody });
  const onInteraction = (body: JsonSchema = emptyBody) => validateRequest({ params: agentInteractionParams, body });
  const iid = (c: Call) => c.req.params.interactionId as string;

  r.get(
    '/agents/:agentId/presence',
    agentOnly,
    h(async (c) => void c.res.json(await desktop.getPresence(c.agent))),
  );
  r.put(
    '/agents/:agentId/presence',
    validateRequest({ params: agentParams, body: presenceUpdate }),
    h(async (c) => {
      const body = c.req.body as { presence: Presence; reason?: string };
      c.res.json(
        await desktop.setPresence(c.accountId, c.agent.agentId, body.presence, body.reason ?? null, c.traceparent),
      );
    }),
  );
  r.get(
    '/agents/:agentId/offers',
    agentOnly,
    h(async (c) => void c.res.json(await desktop.offers(c.agent))),
  );
  r.post(
    '/agents/:agentId/offers/:offerId/accept',
    onOffer,
    h(async (c) => void c.res.json(await desktop.accept(c.agent, c.req.params.offerId as string, c.traceparent))),
  );
  r.post(
    '/agents/:agentId/offers/:offerId/reject',
    onOffer,
    h(async (c) => {
      await desktop.reject(c.agent, c.req.params.offerId as string, c.traceparent);
      c.res.status(204).end();
    }),
  );
  r.get(
    '/agents/:agentId/interactions',
    agentOnly,
    h(async (c) => void c.res.json(await desktop.interactions(c.agent))),
  );
  r.post(
    '/agents/:agentId/interactions/:interactionId/hold',
    onInteraction(),
    h(async (c) => void c.res.json(await desktop.hold(c.accountId, c.agent.agentId, iid(c), c.traceparent))),
  );
  r.post(
    '/agents/:agentId/interactions/:interactionId/retrieve',
    onInteraction(),
    h(async (c) => void c.res.json(await desktop.retrieve(c.accountId, c.agent.agentId, iid(c), c.traceparent))),
  );
  r.post(
    '/agents/:agentId/interactions/:interactionId/release',
    onInteraction(),
    h(async (c) => void c.res.json(await desktop.release(c.accountId, c.agent.agentId, iid(c), c.traceparent))),
  );
  r.post(
    '/agents/:agentId/interactions/:interactionId/end-wrap',
    onInteraction(),
    h(async (c) => {
      await desktop.endWrap(c.accountId, c.agent.agentId, iid(c), c.traceparent);
      c.res.status(204).end();
    }),
  );
  r.post(
    '/agents/:agentId/interactions/:interactionId/transfer',
    onInteraction(transferRequest),
    h(async (c) => {
      await desktop.transfer(
        c.accountId,
        c.agent.agentId,
        iid(c),
        c.req.body as { agent?: string; route?: string },
        c.traceparent,
      );
      c.res.status(202).end();
    }),
  );
  app.use('/agent-desktop', r);
}
