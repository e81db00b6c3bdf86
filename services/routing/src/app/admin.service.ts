import { randomUUID } from 'node:crypto';
import { routingError } from '../domain/errors';
import { nameKey } from '../domain/names';
import { assertPlanConsistent } from '../domain/plan';
import { iso } from '../domain/time';
import type { AgentRecord, Capacity, Plan } from '../domain/types';
import type { PutOutcome, RouteDef, SkillDef } from '../store/config.repository';
import { isDuplicateKey } from '../store/errors';
import type { RoutingContext } from './context';

/** Paging of admin listings (1-based page). */
export interface Paging {
  page: number;
  limit: number;
}

/** The admin listing envelope. */
export function listEnvelope<T>(items: T[], total: number, paging: Paging) {
  return {
    meta: { page: paging.page, count: items.length, pageCount: Math.ceil(total / paging.limit), totalCount: total },
    items,
  };
}

/** Body of agent create/replace (validated by the contracts). */
export interface AgentWrite {
  username: string;
  displayName?: string;
  skills?: { name: string; level?: number }[];
  capacity: Capacity;
}

/** An agent as the admin API shows it. */
export function agentView(a: AgentRecord) {
  return {
    agentId: a.agentId,
    username: a.username,
    ...(a.displayName ? { displayName: a.displayName } : {}),
    skills: a.skills,
    capacity: a.capacity,
    presence: a.presence,
    createdAt: iso(a.createdAt),
  };
}

const skillView = (s: SkillDef) => ({ name: s.name, ...(s.description ? { description: s.description } : {}) });
const routeView = (r: RouteDef) => ({
  name: r.name,
  interactionPlan: r.interactionPlan,
  ...(r.description ? { description: r.description } : {}),
});
const planView = (p: Plan) => ({
  name: p.name,
  ...(p.reportingGroup ? { reportingGroup: p.reportingGroup } : {}),
  applets: p.applets,
});

function assertNameMatches(pathName: string, bodyName: string): void {
  if (pathName !== bodyName) {
    throw routingError('REQUEST.VALIDATION', 'The name in the body differs from the name in the path', [
      { pointer: '/name', message: `name must equal the name in the path (${pathName})` },
    ]);
  }
}

function putResult(outcome: PutOutcome, what: string, name: string): 'created' | 'replaced' {
  if (outcome === 'case-conflict') {
    throw routingError(
      'REQUEST.CONFLICT',
      `A ${what} named ${name} exists with another letter case; names are unique case-insensitively`,
    );
  }
  return outcome;
}

/** The administration API of routing: skills, routes, interaction plans, agents and routing traces. */
export class AdminService {
  constructor(private readonly ctx: RoutingContext) {}

  async putSkill(accountId: string, name: string, body: { name: string; description?: string }) {
    assertNameMatches(name, body.name);
    const outcome = putResult(
      await this.ctx.config.putSkill(accountId, { name, description: body.description ?? null }),
      'skill',
      name,
    );
    return { outcome, view: skillView({ name, description: body.description ?? null }) };
  }

  async listSkills(accountId: string, paging: Paging) {
    const { items, total } = await this.ctx.config.pageSkills(
      accountId,
      (paging.page - 1) * paging.limit,
      paging.limit,
    );
    return listEnvelope(items.map(skillView), total, paging);
  }

  async deleteSkill(accountId: string, name: string): Promise<void> {
    if (!(await this.ctx.config.getSkill(accountId, name))) throw routingError('REQUEST.NOT_FOUND', `No skill ${name}`);
    if (await this.ctx.agents.anyWithSkill(accountId, name))
      throw routingError('REQUEST.CONFLICT', `Skill ${name} is held by an agent`);
    const plan = await this.ctx.config.planUsingSkill(accountId, name);
    if (plan) throw routingError('REQUEST.CONFLICT', `Skill ${name} is tagged by interaction plan ${plan}`);
    await this.ctx.config.deleteSkill(accountId, name);
  }

  async putRoute(
    accountId: string,
    name: string,
    body: { name: string; interactionPlan: string; description?: string },
  ) {
    assertNameMatches(name, body.name);
    const plan = await this.ctx.config.getPlan(accountId, body.interactionPlan);
    if (!plan) {
      throw routingError('ROUTING.UNKNOWN_PLAN', `Interaction plan ${body.interactionPlan} does not exist`, [
        { pointer: '/interactionPlan', message: `interactionPlan ${body.interactionPlan} does not exist` },
      ]);
    }
    const route: RouteDef = { name, interactionPlan: plan.name, description: body.description ?? null };
    const outcome = putResult(await this.ctx.config.putRoute(accountId, route), 'route', name);
    return { outcome, view: routeView(route) };
  }

  async getRoute(accountId: string, name: string) {
    const route = await this.ctx.config.getRoute(accountId, name);
    if (!route) throw routingError('REQUEST.NOT_FOUND', `No route ${name}`);
    return routeView(route);
  }

  async listRoutes(accountId: string, paging: Paging) {
    const { items, total } = await this.ctx.config.pageRoutes(
      accountId,
      (paging.page - 1) * paging.limit,
      paging.limit,
    );
    return listEnvelope(items.map(routeView), total, paging);
  }

  async deleteRoute(accountId: string, name: string): Promise<void> {
    if (!(await this.ctx.config.deleteRoute(accountId, name)))
      throw routingError('REQUEST.NOT_FOUND', `No route ${name}`);
  }

  async putPlan(
    accountId: string,
    name: string,
    body: { name: string; reportingGroup?: string; applets: Plan['applets'] },
  ) {
    assertNameMatches(name, body.name);
    const configured = await this.ctx.config.skillNames(accountId);
    assertPlanConsistent(
      { name, reportingGroup: body.reportingGroup ?? null, applets: body.applets },
      new Set(configured.keys()),
    );
    // SkillTagger skills take the configured spelling (names compare case-insensitively).
    const applets = body.applets.map((a) =>
      a.type === 'SkillTagger'
        ? { ...a, skills: a.skills.map((s) => ({ ...s, name: configured.get(nameKey(s.name)) ?? s.name })) }
        : a,
    );
    const plan: Plan = { name, reportingGroup: body.reportingGroup ?? null, applets };
    const outcome = putResult(await this.ctx.config.putPlan(accountId, plan), 'interaction plan', name);
    return { outcome, view: planView(plan) };
  }

  async getPlan(accountId: string, name: string) {
    const plan = await this.ctx.config.getPlan(accountId, name);
    if (!plan) throw routingError('REQUEST.NOT_FOUND', `No interaction plan ${name}`);
    return planView(plan);
  }

  async listPlans(accountId: string, paging: Paging) {
    const { items, total } = await this.ctx.config.pagePlans(accountId, (paging.page - 1) * paging.limit, paging.limit);
    return listEnvelope(items.map(planView), total, paging);
  }

  async deletePlan(accountId: string, name: string): Promise<void> {
    if (!(await this.ctx.config.getPlan(accountId, name)))
      throw routingError('REQUEST.NOT_FOUND', `No interaction plan ${name}`);
    const route = await this.ctx.config.routeUsingPlan(accountId, name);
    if (route) throw routingError('REQUEST.CONFLICT', `Interaction plan ${name} is used by route ${route}`);
    await this.ctx.config.deletePlan(accountId, name);
  }

  /** Agent skills must name configured skills (one 422 lists every unknown one); names take the configured spelling. */
  private async agentSkills(accountId: string, body: AgentWrite) {
    const configured = await this.ctx.config.skillNames(accountId);
    const errors: { pointer: string; message: string }[] = [];
    const skills = (body.skills ?? []).map((s, i) => {
      const name = configured.get(nameKey(s.name));
      if (name === undefined)
        errors.push({ pointer: `/skills/${i}/name`, message: `skill ${s.name} is not configured` });
      return { name: name ?? s.name, level: s.level ?? 5 };
    });
    if (errors.length)
      throw routingError('ROUTING.UNKNOWN_SKILL', `${errors.length} skill(s) are not configured`, errors);
    return skills;
  }

  async createAgent(accountId: string, body: AgentWrite) {
    const skills = await this.agentSkills(accountId, body);
    const now = Date.now();
    const agent: AgentRecord = {
      agentId: randomUUID(),
      accountId,
      username: body.username,
      displayName: body.displayName ?? null,
      skills,
      capacity: body.capacity,
      presence: 'LoggedOut',
      presenceReason: null,
      presenceSince: now,
      everLoggedIn: false,
      idleSince: now,
      missedOffers: 0,
      work: [],
      workloadSince: null,
      activitySeq: 0,
      createdAt: now,
      version: 0,
    };
    if (!(await this.ctx.agents.insert(agent))) {
      throw routingError(
        'REQUEST.CONFLICT',
        `An agent named ${body.username} exists (usernames are unique case-insensitively)`,
      );
    }
    return agentView(agent);
  }

  async getAgent(accountId: string, agentId: string) {
    const agent = await this.ctx.agents.get(accountId, agentId);
    if (!agent) throw routingError('REQUEST.NOT_FOUND', `No agent ${agentId}`);
    return agentView(agent);
  }

  async listAgents(accountId: string, paging: Paging) {
    const { items, total } = await this.ctx.agents.page(accountId, (paging.page - 1) * paging.limit, paging.limit);
    return listEnvelope(items.map(agentView), total, paging);
  }

  async replaceAgent(accountId: string, agentId: string, body: AgentWrite) {
    const skills = await this.agentSkills(accountId, body);
    for (let attempt = 0; attempt < 5; attempt++) {
      const agent = await this.ctx.agents.get(accountId, agentId);
      if (!agent) throw routingError('REQUEST.NOT_FOUND', `No agent ${agentId}`);
      const next: AgentRecord = {
        ...agent,
        username: body.username,
        displayName: body.displayName ?? null,
        skills,
        capacity: body.capacity,
        version: agent.version + 1,
      };
      try {
        if (await this.ctx.agents.save(next, agent.version, [])) {
          await this.ctx.waker.wake(accountId);
          return agentView(next);
        }
      } catch (err) {
        if (isDuplicateKey(err))
          throw routingError(
            'REQUEST.CONFLICT',
            `An agent named ${body.username} exists (usernames are unique case-insensitively)`,
          );
        throw err;
      }
    }
    throw routingError('REQUEST.CONFLICT', `Agent ${agentId} is changing too often; try again`);
  }

  async deleteAgent(accountId: string, agentId: string): Promise<void> {
    const agent = await this.ctx.agents.get(accountId, agentId);
    if (!agent) throw routingError('REQUEST.NOT_FOUND', `No agent ${agentId}`);
    if (agent.presence !== 'LoggedOut' || agent.work.length)
      throw routingError('REQUEST.CONFLICT', `Agent ${agent.username} is logged in; log them out first`);
    if (!(await this.ctx.agents.delete(accountId, agentId, agent.version)))
      throw routingError('REQUEST.CONFLICT', `Agent ${agent.username} changed meanwhile; try again`);
  }

  /** The routing decisions taken for an interaction: candidates, exclusions, winner and rule of each. */
  async trace(accountId: string, interactionId: string) {
    const rec = await this.ctx.interactions.getWithTrace(accountId, interactionId);
    if (!rec) throw routingError('REQUEST.NOT_FOUND', `No interaction ${interactionId}`);
    return {
      interactionId,
      decisions: rec.decisions.map((d) => ({ ...d, at: iso(d.at) })),
    };
  }
}
