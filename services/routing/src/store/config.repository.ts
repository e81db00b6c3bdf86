import { forAccount } from '@cc/store';
import { nameKey } from '../domain/names';
import type { Applet, Plan } from '../domain/types';
import { isDuplicateKey } from './errors';
import { FreshCache } from './fresh-cache';
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

/**
 * Named documents by comparison key: those read less than the cache's time ago from memory, the rest by
 * `_id` from the store (`<account>:<name key>`, one lookup each, shared by concurrent misses; kept). Names not
 * found are not kept: they are read again next time.
 */
async function cachedByKeys<T>(
  cache: FreshCache<T>,
  model: NamedModel,
  accountId: string,
  names: string[],
  map: (d: Doc) => T,
): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  const missing: string[] = [];
  for (const key of new Set(names.map(nameKey))) {
    const kept = cache.get(`${accountId}:${key}`);
    if (kept !== undefined) out.set(key, kept);
    else missing.push(key);
  }
  if (!missing.length) return out;
  const found = await Promise.all(
    missing.map((key) =>
      cache.load(`${accountId}:${key}`, async () => {
        const d = await model.findOne({ accountId, _id: `${accountId}:${key}` }).lean<Doc>();
        return d ? map(d) : undefined;
      }),
    ),
  );
  missing.forEach((key, i) => {
    const value = found[i];
    if (value !== undefined) out.set(key, value);
  });
  return out;
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

/**
 * Skills, routes and interaction plans of one account: names unique case-insensitively.
 *
 * What Invoke reads (`routesByKeys`, `plansByKeys`, `knownSkills`) is kept in memory for `freshMs` after
 * it was read and dropped at once by this instance's own writes; a name not in memory is read from the
 * store, so a name created anywhere is seen by the next Invoke, and a change or deletion made through
 * another instance within `freshMs`. The admin API reads the store.
 */
export class ConfigRepository {
  private readonly routeCache: FreshCache<RouteDef>;
  private readonly planCache: FreshCache<Plan>;
  private readonly skillCache: FreshCache<Map<string, string>>;

  constructor(
    private readonly models: Models,
    freshMs = 0,
  ) {
    this.routeCache = new FreshCache(freshMs);
    this.planCache = new FreshCache(freshMs);
    this.skillCache = new FreshCache(freshMs, 10_000);
  }

  async putSkill(accountId: string, skill: SkillDef): Promise<PutOutcome> {
    try {
      return await putNamed(this.models.skills, accountId, skill.name, { description: skill.description });
    } finally {
      this.skillCache.drop(accountId);
    }
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

  /**
   * Configured skill names by comparison key (Invoke): from memory when read less than `freshMs` ago and
   * holding every name asked for; else read again (a skill created elsewhere is seen at once).
   */
  async knownSkills(accountId: string, names: string[]): Promise<Map<string, string>> {
    const holdsAll = (known: Map<string, string>) => names.every((n) => known.has(nameKey(n)));
    const kept = this.skillCache.get(accountId);
    if (kept && holdsAll(kept)) return kept;
    return (await this.skillCache.load(accountId, () => this.skillNames(accountId), holdsAll)) ?? new Map();
  }

  async deleteSkill(accountId: string, name: string): Promise<boolean> {
    try {
      return (
        (await this.models.skills.deleteOne({ accountId, _id: `${accountId}:${nameKey(name)}` })).deletedCount === 1
      );
    } finally {
      this.skillCache.drop(accountId);
    }
  }

  async putRoute(accountId: string, route: RouteDef): Promise<PutOutcome> {
    try {
      return await putNamed(this.models.routes, accountId, route.name, {
        interactionPlan: route.interactionPlan,
        planKey: nameKey(route.interactionPlan),
        description: route.description,
      });
    } finally {
      this.routeCache.drop(`${accountId}:${nameKey(route.name)}`);
    }
  }

  async getRoute(accountId: string, name: string): Promise<RouteDef | null> {
    const d = await this.models.routes.findOne({ accountId, _id: `${accountId}:${nameKey(name)}` }).lean<Doc>();
    return d ? toRoute(d) : null;
  }

  /** Routes by comparison key (Invoke): from memory, the others read from the store by `_id`. */
  routesByKeys(accountId: string, names: string[]): Promise<Map<string, RouteDef>> {
    return cachedByKeys(this.routeCache, this.models.routes, accountId, names, toRoute);
  }

  pageRoutes(accountId: string, skip: number, limit: number) {
    return pageOf(this.models.routes, accountId, skip, limit, toRoute);
  }

  async deleteRoute(accountId: string, name: string): Promise<boolean> {
    try {
      return (
        (await this.models.routes.deleteOne({ accountId, _id: `${accountId}:${nameKey(name)}` })).deletedCount === 1
      );
    } finally {
      this.routeCache.drop(`${accountId}:${nameKey(name)}`);
    }
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
    }).finally(() => this.planCache.drop(`${accountId}:${nameKey(plan.name)}`));
  }

  async getPlan(accountId: string, name: string): Promise<Plan | null> {
    const d = await this.models.plans.findOne({ accountId, _id: `${accountId}:${nameKey(name)}` }).lean<Doc>();
    return d ? toPlan(d) : null;
  }

  /** Plans by comparison key (Invoke): from memory, the others read from the store by `_id`. */
  plansByKeys(accountId: string, names: string[]): Promise<Map<string, Plan>> {
    return cachedByKeys(this.planCache, this.models.plans, accountId, names, toPlan);
  }

  pagePlans(accountId: string, skip: number, limit: number) {
    return pageOf(this.models.plans, accountId, skip, limit, toPlan);
  }

  async deletePlan(accountId: string, name: string): Promise<boolean> {
    try {
      return (
        (await this.models.plans.deleteOne({ accountId, _id: `${accountId}:${nameKey(name)}` })).deletedCount === 1
      );
    } finally {
      this.planCache.drop(`${accountId}:${nameKey(name)}`);
    }
  }

  async planUsingSkill(accountId: string, skill: string): Promise<string | null> {
    const d = await this.models.plans.findOne({ accountId, skillKeys: nameKey(skill) }, { name: 1 }).lean<Doc>();
    return d ? (d.name as string) : null;
  }
}
