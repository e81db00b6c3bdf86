import { changePresence } from '../domain/agent';
import { routingError } from '../domain/errors';
import {
  accept,
  agentRelease,
  endOffer,
  endWrap,
  hold,
  retrieve,
  type Transition,
  transferToAgent,
  transferToRoute,
} from '../domain/interaction';
import { allPermitted, assertPermitted } from '../domain/permissions';
import { iso } from '../domain/time';
import type { AgentOperation, AgentRecord, EffectivePermissions, InteractionRecord, Presence } from '../domain/types';
import { toCloudEvents } from '../events/publisher';
import type { RoutingContext } from './context';
import type { InteractionActions } from './interaction-actions';

/** An offer as the agent desktop shows it. */
export function offerView(rec: InteractionRecord) {
  const offer = rec.offer as NonNullable<InteractionRecord['offer']>;
  return {
    offerId: offer.offerId,
    interactionId: rec.interactionId,
    interactionType: rec.type,
    route: rec.route,
    provider: rec.provider,
    offeredAt: iso(offer.offeredAt),
    expiresAt: iso(offer.expiresAt),
    linkeddata: rec.linkeddata,
  };
}

/** An assigned interaction as the agent desktop shows it. */
export function agentInteractionView(rec: InteractionRecord, permissions: EffectivePermissions) {
  const agent = rec.agent;
  const since =
    rec.state === 'held'
      ? agent?.heldAt
      : rec.state === 'wrap'
        ? agent?.wrapAt
        : rec.state === 'connected'
          ? agent?.connectedAt
          : rec.endedAt;
  return {
    interactionId: rec.interactionId,
    externalId: rec.externalId,
    provider: rec.provider,
    state: rec.state,
    interactionType: rec.type,
    since: iso(since ?? rec.createdAt),
    permissions,
    linkeddata: rec.linkeddata,
  };
}

function presenceView(a: AgentRecord) {
  return {
    agentId: a.agentId,
    presence: a.presence,
    reason: a.presenceReason,
    eligibleForRouting: a.presence === 'Ready',
    since: iso(a.presenceSince),
  };
}

/** Re-read interval while an accepted offer's interaction write is still landing. */
const offerLandingPollMs = 25;

/** The agent-desktop API: presence, offers and agent actions, each checked against the provider's permissions. */
export class DesktopService {
  constructor(
    private readonly ctx: RoutingContext,
    private readonly actions: InteractionActions,
  ) {}

  /** The agent of the path, in the token's account; a token naming an agent may act only as that agent. */
  async agent(accountId: string, agentId: string, tokenAgentId?: string): Promise<AgentRecord> {
    if (tokenAgentId !== undefined && tokenAgentId.toLowerCase() !== agentId.toLowerCase()) {
      throw routingError('AUTH.FORBIDDEN', 'This token may act only as its own agent');
    }
    const agent = await this.ctx.agents.get(accountId, agentId);
    if (!agent) throw routingError('REQUEST.NOT_FOUND', `No agent ${agentId}`);
    return agent;
  }

  /** The provider's effective permissions now (or as at dispatch, if the provider was deleted since). */
  async permissionsOf(rec: InteractionRecord): Promise<EffectivePermissions> {
    if (rec.provider === null) return allPermitted;
    const current = await this.ctx.providers.get(rec.accountId, rec.provider);
    return current?.permissions ?? rec.permissions ?? allPermitted;
  }

  async getPresence(agent: AgentRecord) {
    return presenceView(agent);
  }

  async setPresence(
    accountId: string,
    agentId: string,
    presence: Presence,
    reason: string | null,
    traceparent?: string,
  ) {
    for (let attempt = 0; attempt < 8; attempt++) {
      const agent = await this.ctx.agents.get(accountId, agentId);
      if (!agent) throw routingError('REQUEST.NOT_FOUND', `No agent ${agentId}`);
      const change = changePresence(agent, presence, reason, Date.now());
      if (change.next === agent) return presenceView(agent);
      const staged = await this.ctx.agents.save(
        change.next,
        agent.version,
        toCloudEvents(accountId, agentId, change.events, traceparent),
      );
      if (staged) {
        void this.ctx.publisher.soon(this.ctx.agents.outboxModel, agentId, { staged });
        if (change.wake) await this.ctx.waker.wake(accountId);
        return presenceView(change.next);
      }
    }
    throw routingError('REQUEST.CONFLICT', `Agent ${agentId} is changing too often; try again`);
  }

  /** The interactions in the agent's work list (read by id: the agent document says which). */
  private held(
    agent: AgentRecord,
    filter: (item: AgentRecord['work'][number]) => boolean,
  ): Promise<InteractionRecord[]> {
    return this.ctx.interactions.byIds(
      agent.accountId,
      agent.work.filter(filter).map((w) => w.interactionId),
    );
  }

  /**
   * Offers ringing at the agent: the ringing items of its work list whose offer is on the interaction. The
   * engine reserves the agent first and writes the offer on the interaction second; a reservation whose
   * offer write has not landed is not listed yet, since it may still lose (two lease holders overlapping
   * under load: the other one offered the interaction first) and be withdrawn, and a listed offer must stay
   * acceptable for its ring time. Costs one read by id per ringing item (none when nothing rings).
   */
  async offers(agent: AgentRecord) {
    const now = Date.now();
    const ringing = agent.work.filter((w) => w.cursor <= 1 && (!w.offer || w.offer.expiresAt > now));
    const landed = new Map(
      (await this.held(agent, (w) => ringing.includes(w)))
        .filter((r) => r.state === 'offered' && r.offer?.agentId === agent.agentId && r.offer.expiresAt > now)
        .map((r) => [(r.offer as NonNullable<InteractionRecord['offer']>).offerId, r]),
    );
    return ringing.flatMap((w) => {
      const rec = landed.get(w.offerId);
      return rec ? [offerView(rec)] : [];
    });
  }

  async interactions(agent: AgentRecord) {
    const recs = (await this.held(agent, (w) => w.cursor > 1)).filter(
      (r) => ['connected', 'held', 'wrap'].includes(r.state) && r.agent?.agentId === agent.agentId,
    );
    return Promise.all(recs.map(async (r) => agentInteractionView(r, await this.permissionsOf(r))));
  }

  /**
   * The interaction an offer listed at the agent belongs to. The engine reserves the agent (which is what
   * GET offers lists) one write before it puts the offer on the interaction; under load an agent may accept
   * in between. So while the agent still holds the reservation and the interaction is queued without it,
   * the offer write is waited for (bounded by the reservation grace and the offer's expiry) rather than
   * answering 404 for an offer the desktop has just shown.
   */
  private async offerInteraction(agent: AgentRecord, offerId: string): Promise<InteractionRecord> {
    const notFound = () => routingError('REQUEST.NOT_FOUND', `No offer ${offerId} ringing at agent ${agent.agentId}`);
    let item = agent.work.find((w) => w.offerId === offerId);
    if (!item) throw notFound();
    const deadline = Math.min(Date.now() + this.ctx.settings.reserveGraceMs, item.offer?.expiresAt ?? 0);
    for (;;) {
      const rec = await this.ctx.interactions.get(agent.accountId, item.interactionId);
      if (rec?.offer?.offerId === offerId) return rec;
      const landing = rec?.state === 'queued' && !rec.legs.some((l) => l.offerId === offerId);
      if (!landing || Date.now() + offerLandingPollMs > deadline) throw notFound();
      await new Promise((r) => setTimeout(r, offerLandingPollMs));
      // A reservation withdrawn meanwhile (the offer write lost a race) is not coming.
      const fresh = await this.ctx.agents.get(agent.accountId, agent.agentId);
      item = fresh?.work.find((w) => w.offerId === offerId);
      if (!item) throw notFound();
    }
  }

  async accept(agent: AgentRecord, offerId: string, traceparent?: string) {
    const rec = await this.offerInteraction(agent, offerId);
    const next = await this.actions.apply(
      agent.accountId,
      rec.interactionId,
      (r) => accept(r, agent.agentId, offerId, Date.now()),
      {
        ...opt(traceparent),
        initial: rec,
        agent,
      },
    );
    return agentInteractionView(next, await this.permissionsOf(next));
  }

  async reject(agent: AgentRecord, offerId: string, traceparent?: string): Promise<void> {
    const rec = await this.offerInteraction(agent, offerId);
    await this.actions.apply(
      agent.accountId,
      rec.interactionId,
      (r) => endOffer(r, agent.agentId, offerId, Date.now(), 'rejected'),
      {
        ...opt(traceparent),
        initial: rec,
        agent,
      },
    );
  }

  /** Runs an agent action on one of the agent's interactions, after the provider's permission check. */
  private async act(
    accountId: string,
    agentId: string,
    interactionId: string,
    operation: AgentOperation | null,
    change: (rec: InteractionRecord) => Transition,
    traceparent?: string,
  ) {
    const notFound = `No interaction ${interactionId} assigned to agent ${agentId}`;
    const current = await this.ctx.interactions.get(accountId, interactionId);
    if (!current || current.agent?.agentId !== agentId) throw routingError('REQUEST.NOT_FOUND', notFound);
    const permissions = await this.permissionsOf(current);
    if (operation) assertPermitted(current.provider, permissions, operation);
    const next = await this.actions.apply(
      accountId,
      interactionId,
      (r) => {
        if (r.agent?.agentId !== agentId) throw routingError('REQUEST.NOT_FOUND', notFound);
        return change(r);
      },
      { notFound, initial: current, ...opt(traceparent) },
    );
    return agentInteractionView(next, permissions);
  }

  hold(accountId: string, agentId: string, interactionId: string, traceparent?: string) {
    return this.act(accountId, agentId, interactionId, 'hold', (r) => hold(r, agentId, Date.now()), traceparent);
  }

  retrieve(accountId: string, agentId: string, interactionId: string, traceparent?: string) {
    return this.act(
      accountId,
      agentId,
      interactionId,
      'retrieve',
      (r) => retrieve(r, agentId, Date.now()),
      traceparent,
    );
  }

  release(accountId: string, agentId: string, interactionId: string, traceparent?: string) {
    return this.act(
      accountId,
      agentId,
      interactionId,
      'release',
      (r) => agentRelease(r, agentId, Date.now()),
      traceparent,
    );
  }

  async endWrap(accountId: string, agentId: string, interactionId: string, traceparent?: string): Promise<void> {
    await this.act(accountId, agentId, interactionId, null, (r) => endWrap(r, agentId, Date.now()), traceparent);
  }

  /** Transfer to an agent (by username, case-insensitive) or to a route. */
  async transfer(
    accountId: string,
    agentId: string,
    interactionId: string,
    target: { agent?: string; route?: string },
    traceparent?: string,
  ): Promise<void> {
    if (target.agent !== undefined) {
      const to = await this.ctx.agents.byUsername(accountId, target.agent);
      const check = async (rec: InteractionRecord) => {
        assertPermitted(rec.provider, await this.permissionsOf(rec), 'transferToAgent');
        if (!to)
          throw routingError('AGENT.UNKNOWN_TARGET', `No agent named ${target.agent}`, [
            { pointer: '/agent', message: `agent ${target.agent} does not exist` },
          ]);
        if (to.presence === 'LoggedOut')
          throw routingError('AGENT.INVALID_STATE', `Agent ${to.username} is logged out`);
      };
      await this.checked(accountId, agentId, interactionId, check);
      const window = this.ctx.settings.transferWindowSeconds;
      const dest = to as AgentRecord;
      await this.act(
        accountId,
        agentId,
        interactionId,
        'transferToAgent',
        (r) => transferToAgent(r, agentId, { agentId: dest.agentId, username: dest.username }, Date.now(), window),
        traceparent,
      );
      return;
    }
    const routeName = target.route as string;
    const route = await this.ctx.config.getRoute(accountId, routeName);
    const plan = route ? await this.ctx.config.getPlan(accountId, route.interactionPlan) : null;
    await this.checked(accountId, agentId, interactionId, async (rec) => {
      assertPermitted(rec.provider, await this.permissionsOf(rec), 'transferToRoute');
      if (!route || !plan)
        throw routingError('ROUTING.UNKNOWN_ROUTE', `Route ${routeName} does not exist`, [
          { pointer: '/route', message: `route ${routeName} does not exist` },
        ]);
    });
    const located = { name: (route as NonNullable<typeof route>).name, plan: plan as NonNullable<typeof plan> };
    await this.act(
      accountId,
      agentId,
      interactionId,
      'transferToRoute',
      (r) => transferToRoute(r, agentId, located, Date.now()),
      traceparent,
    );
  }

  /** Permission first, then the target: a provider that forbids transfers is told so whatever the target. */
  private async checked(
    accountId: string,
    agentId: string,
    interactionId: string,
    check: (rec: InteractionRecord) => Promise<void>,
  ) {
    const rec = await this.ctx.interactions.get(accountId, interactionId);
    if (!rec || rec.agent?.agentId !== agentId)
      throw routingError('REQUEST.NOT_FOUND', `No interaction ${interactionId} assigned to agent ${agentId}`);
    await check(rec);
  }
}

function opt(traceparent?: string) {
  return traceparent ? { traceparent } : {};
}
