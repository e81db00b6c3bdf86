import { forAccount } from '@cc/store';
import { nameKey } from '../domain/names';
import type { Applet, Plan } from '../domain/types';
import { isDuplicateKey } from './errors';
import type { Models } from './models';

// biome-ignore lint/suspicious/noExplicitAny: lean documents
type Doc = Record<string, any>;

/** A skill definition. */
export interface SkillDef {
  name: string;
  description: string | null;
}

/** A route: a name clients dispatch to, pointing at an interaction plan. */
export interface RouteDef {
  name: string;
  interactionPlan: string;
  description: string | null;
}

/** Outcome of a create-or-replace by name. */
export type PutOutcome = 'created' | 'replaced' | 'case-conflict';

type NamedModel = Models['skills'] | Models['routes'] | Models['plans'];

async function putNamed(
  model: NamedModel,
  accountId: string,
  name: string,
  fields: Record<string, unknown>,
): Promise<PutOutcome> {
  const key = nameKey(name);
  const now = Date.now();
  const id = `${accountId}:${key}`;
  const existing = await model.findOne({ accountId, _id: id }, { name: 1 }).lean<Doc>();
  if (existing && existing.name !== name) return 'case-conflict';
  if (existing) {
    await model.updateOne({ accountId, _id: id }, { $set: { ...fields, updatedAt: now } });
    return 'replaced';
  }
  try {
    await forAccount(model, accountId).insertOne({
      _id: id,
      accountId,
      name,
      nameKey: key,
      createdAt: now,
      updatedAt: now,
      ...fields,
    } as never);
    return 'created';
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    const raced = await model.findOne({ accountId, _id: id }, { name: 1 }).lean<Doc>();
    if (raced && raced.name !== name) return 'case-conflict';
    await model.updateOne({ accountId, _id: id }, { $set: { ...fields, updatedAt: now } });
    return 'replaced';
  }
}

async function pageOf<T>(model: NamedModel, accountId: string, skip: number, limit: number, map: (d: Doc) => T) {
  const [docs, total] = await Promise.all([
    model.find({ accountId }).sort({ nameKey: 1 }).skip(skip).limit(limit).lean<Doc[]>(),
    model.countDocuments({ accountId }),
  ]);
  return { items: docs.map(map), total };
}

/** Named documents by name, one `_id` lookup each (`_id` is `<account>:<name key>`). */
async function byKeys(model: NamedModel, accountId: string, names: string[]): Promise<Doc[]> {
  const keys = [...new Set(names.map(nameKey))];
  const docs = await Promise.all(keys.map((k) => model.findOne({ accountId, _id: `${accountId}:${k}` }).lean<Doc>()));
  return docs.filter((d): d is Doc => d !== null);
}

const toSkill = (d: Doc): SkillDef => ({ name: d.name, description: d.description ?? null });
const toRoute = (d: Doc): RouteDef => ({
  name: d.name,
  interactionPlan: d.interactionPlan,
  description: d.description ?? null,
});
const toPlan = (d: Doc): Plan => ({
  name: d.name,
  reportingGroup: d.reportingGroup ?? null,
  applets: d.applets as Applet[],
});

/** Skills, routes and interaction plans of one account: names unique case-insensitively. */
export class ConfigRepository {
  constructor(private readonly models: Models) {}

  putSkill(accountId: string, skill: SkillDef): Promise<PutOutcome> {
    return putNamed(this.models.skills, accountId, skill.name, { description: skill.description });
  }

  async getSkill(accountId: string, name: string): Promise<SkillDef | null> {
    const d = await this.models.skills.findOne({ accountId, _id: `${accountId}:${nameKey(name)}` }).lean<Doc>();
    return d ? toSkill(d) : null;
  }

  /** Configured skill names by comparison key (for validating references). */
  async skillNames(accountId: string): Promise<Map<string, string>> {
    const docs = await this.models.skills.find({ accountId }, { name: 1, nameKey: 1 }).lean<Doc[]>();
    return new Map(docs.map((d) => [d.nameKey as string, d.name as string]));
  }

  pageSkills(accountId: string, skip: number, limit: number) {
    return pageOf(this.models.skills, accountId, skip, limit, toSkill);
  }

  async deleteSkill(accountId: string, name: string): Promise<boolean> {
    return (await this.models.skills.deleteOne({ accountId, _id: `${accountId}:${nameKey(name)}` })).deletedCount === 1;
  }

  putRoute(accountId: string, route: RouteDef): Promise<PutOutcome> {
    return putNamed(this.models.routes, accountId, route.name, {
      interactionPlan: route.interactionPlan,
      planKey: nameKey(route.interactionPlan),
      description: route.description,
    });
  }

  async getRoute(accountId: string, name: string): Promise<RouteDef | null> {
    const d = await this.models.routes.findOne({ accountId, _id: `${accountId}:${nameKey(name)}` }).lean<Doc>();
    return d ? toRoute(d) : null;
  }

  /** Routes by comparison key, for locating many routes of one Invocation in one read. */
  async routesByKeys(accountId: string, names: string[]): Promise<Map<string, RouteDef>> {
    const docs = await byKeys(this.models.routes, accountId, names);
    return new Map(docs.map((d) => [d.nameKey as string, toRoute(d)]));
  }

  pageRoutes(accountId: string, skip: number, limit: number) {
    return pageOf(this.models.routes, accountId, skip, limit, toRoute);
  }

  async deleteRoute(accountId: string, name: string): Promise<boolean> {
    return (await this.models.routes.deleteOne({ accountId, _id: `${accountId}:${nameKey(name)}` })).deletedCount === 1;
  }

  async routeUsingPlan(accountId: string, plan: string): Promise<string | null> {
    const d = await this.models.routes.findOne({ accountId, planKey: nameKey(plan) }, { name: 1 }).lean<Doc>();
    return d ? (d.name as string) : null;
  }

  putPlan(accountId: string, plan: Plan): Promise<PutOutcome> {
    const skillKeys = plan.applets.flatMap((a) =>
      a.type === 'SkillTagger' ? a.skills.map((s) => nameKey(s.name)) : [],
    );
    return putNamed(this.models.plans, accountId, plan.name, {
      reportingGroup: plan.reportingGroup,
      applets: plan.applets,
      skillKeys,
    });
  }

  async getPlan(accountId: string, name: string): Promise<Plan | null> {
    const d = await this.models.plans.findOne({ accountId, _id: `${accountId}:${nameKey(name)}` }).lean<Doc>();
    return d ? toPlan(d) : null;
  }

  /** Plans by comparison key. */
  async plansByKeys(accountId: string, names: string[]): Promise<Map<string, Plan>> {
    const docs = await byKeys(this.models.plans, accountId, names);
    return new Map(docs.map((d) => [d.nameKey as string, toPlan(d)]));
  }

  pagePlans(accountId: string, skip: number, limit: number) {
    return pageOf(this.models.plans, accountId, skip, limit, toPlan);
  }

  async deletePlan(accountId: string, name: string): Promise<boolean> {
    return (await this.models.plans.deleteOne({ accountId, _id: `${accountId}:${nameKey(name)}` })).deletedCount === 1;
  }

  async planUsingSkill(accountId: string, skill: string): Promise<string | null> {
    const d = await this.models.plans.findOne({ accountId, skillKeys: nameKey(skill) }, { name: 1 }).lean<Doc>();
    return d ? (d.name as string) : null;
  }
}
