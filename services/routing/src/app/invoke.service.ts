import { randomUUID } from 'node:crypto';
import { type OutboxEntry, outboxEntries } from '@cc/bus';
import type { InvokeResult } from '@cc/contracts';
import type { FieldError } from '@cc/kit';
import { routingError } from '../domain/errors';
import { apiRelease, createInteraction, releaseKey } from '../domain/interaction';
import {
  assertExternalIdsFree,
  type DedupePlan,
  type NormalizedRequest,
  normalizeInvocation,
  planDedupe,
  type RawInteraction,
  type StoredOutcome,
} from '../domain/invocation';
import { nameKey } from '../domain/names';
import type { InteractionRecord, Plan } from '../domain/types';
import { groupedPublication, type Staged, toCloudEvents } from '../events/publisher';
import { interactionTopic } from '../events/topics';
import type { RouteDef } from '../store/config.repository';
import type { GroupCommit } from '../store/group-commit';
import type { ProviderInfo } from '../store/provider.repository';
import type { RoutingContext } from './context';
import type { InteractionActions } from './interaction-actions';

/** One result of POST /interactions/Invoke, in request order (the contracts' type). */
export type { InvokeResult };

/**
 * Awaits every promise, then rethrows the first failure in list order (not in time order), so a request
 * with several faults is always refused for the same one.
 */
async function inOrder<T extends readonly unknown[]>(
  promises: { [K in keyof T]: Promise<T[K]> },
): Promise<{ -readonly [K in keyof T]: T[K] }> {
  const settled = await Promise.allSettled(promises);
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as never;
}

interface Located {
  route: RouteDef;
  plan: Plan;
}

interface Dispatched {
  rec: InteractionRecord;
  /** Its events as outbox entries (built once: inserted with it, then published as staged). */
  outbox: OutboxEntry[];
}

/**
 * POST /interactions/Invoke: everything is checked before anything is processed (provider, routes,
 * plans, skills, requestId conflicts, externalIds in use; requestIds are claimed to be checked, and the
 * claims withdrawn if refused); then dispatches are inserted (each with its plan run and events in one
 * document) and releases applied, in request order.
 */
export class InvokeService {
  /**
   * Eager publication of new interactions' events, grouped across Invocations (a group commit of the
   * publish): published once inserted, never awaited by the request (the outbox holds them; a failure is
   * left to the relay by the publisher).
   */
  private readonly announced: GroupCommit<{ id: string; staged: Staged }, null>;

  constructor(
    private readonly ctx: RoutingContext,
    private readonly actions: InteractionActions,
  ) {
    this.announced = groupedPublication(
      () => ctx.publisher,
      () => ctx.interactions.outboxModel,
    );
  }

  async invoke(
    accountId: string,
    body: { provider?: string; requests: RawInteraction[] },
    traceparent?: string,
  ): Promise<InvokeResult[]> {
    const { provider: providerName, requests } = normalizeInvocation(body);
    const keyOf = (externalId: string) => releaseKey(providerName, externalId);
    const releaseKeys = requests
      .filter((r) => r.action === 'release' && r.externalId !== null)
      .map((r) => keyOf(r.externalId as string));
    // Provider, routes, plans and skills come from memory (read from the store when not there); releases
    // look up their targets. Refusals keep their order (provider, then routes and skills).
    const [provider, located, targets] = await inOrder([
      this.provider(accountId, providerName),
      this.locate(accountId, requests),
      releaseKeys.length
        ? this.ctx.interactions.liveKeys(accountId, releaseKeys)
        : Promise.resolve(new Map<string, string>()),
    ] as const);

    // Claim every requestId (one bulk insert, shared with concurrent Invocations): a requestId never seen,
    // the common case, costs no read; only the claims refused as taken are read back to be deduped.
    // Interaction ids are pre-assigned so a claim records them (a retry after a crash resumes with that id).
    // The dispatches' externalIds are claimed the same way, at the same time, under those ids: a new
    // externalId costs no read; only refused claims are read back, to tell a live interaction from a
    // stale claim. Claims that dedupe leaves unused (a resumed or duplicate requestId) are withdrawn.
    // Each dispatch's plan runs now, in memory, so its claim records the outcome: a dispatch claim never
    // needs a completion write (its interaction existing is what completes it, see `settled`).
    const now = Date.now();
    const fresh = new Map<string, StoredOutcome>();
    const preassigned = new Map<number, string>();
    const built = new Map<number, Dispatched>();
    const wantKeys: { key: string; interactionId: string }[] = [];
    for (const r of requests) {
      let id: string | null = null;
      let outcome: StoredOutcome['outcome'] = null;
      if (r.action === 'dispatch') {
        const earlier = r.requestId !== null ? fresh.get(r.requestId) : undefined;
        id = earlier?.interactionId ?? randomUUID();
        preassigned.set(r.index, id);
        if (!earlier) {
          const d = this.dispatched(accountId, r, id, provider, located.get(r.index) as Located, now, traceparent);
          built.set(r.index, d);
          outcome = d.rec.state === 'ended' ? 'released' : 'queued';
        }
        if (r.externalId !== null) wantKeys.push({ key: keyOf(r.externalId), interactionId: id });
      }
      // The first object of a requestId is the one claimed (and processed).
      if (r.requestId !== null && !fresh.has(r.requestId)) fresh.set(r.requestId, this.pending(r, id, outcome));
    }
    const [taken, keyed] = await Promise.all([
      this.ctx.requests.claim(accountId, [...fresh.values()]),
      this.ctx.interactions.claimNewKeys(accountId, wantKeys),
    ]);
    const ours = [...fresh.keys()].filter((id) => !taken.has(id));
    let plan: DedupePlan[];
    const claims = new Map<number, StoredOutcome>();
    /** Key claims written above and used by a dispatch processed under the same id. */
    const keysInserted = new Map<string, string>();
    let live: Map<string, string>;
    /** A retry found its dispatch stored by an attempt that may have stopped before its wake. */
    let resolvedQueued = false;
    try {
      const stored = taken.size ? await this.settled(accountId, [...taken]) : new Map<string, StoredOutcome>();
      // A taken claim that is gone again was withdrawn by a concurrent request that was refused.
      if (stored.size < taken.size) this.raced(requests, new Set([...taken].filter((id) => !stored.has(id))));
      plan = planDedupe(requests, stored);
      for (const r of requests) {
        const p = plan[r.index] as DedupePlan;
        if (p.kind === 'stored' && p.stored.action === 'dispatch' && p.stored.outcome === 'queued')
          resolvedQueued = true;
        if (p.kind !== 'process') continue;
        const interactionId = p.resume?.interactionId ?? preassigned.get(r.index) ?? null;
        claims.set(r.index, { ...this.pending(r, interactionId, null), requestId: r.requestId ?? '' });
        const key = r.externalId !== null ? keyOf(r.externalId) : null;
        if (r.action === 'dispatch' && key !== null && keyed.inserted.get(key) === interactionId)
          keysInserted.set(key, interactionId as string);
      }
      live = new Map([...keyed.live, ...targets]);
      assertExternalIdsFree(requests, plan, new Set(live.keys()), keyOf);
    } catch (err) {
      // Refused before anything was processed: our own claims are withdrawn.
      await Promise.all([
        this.ctx.requests.unclaim(accountId, ours),
        this.ctx.interactions.withdrawKeys(
          accountId,
          [...keyed.inserted].map(([key, interactionId]) => ({ key, interactionId })),
        ),
      ]);
      throw err;
    }
    const unused = [...keyed.inserted].filter(([key]) => !keysInserted.has(key));
    if (unused.length)
      await this.ctx.interactions.withdrawKeys(
        accountId,
        unused.map(([key, interactionId]) => ({ key, interactionId })),
      );

    const results: (InvokeResult | undefined)[] = new Array(requests.length);
    let batch: (Dispatched & { index: number })[] = [];
    // Dispatches that lost their externalId to a concurrent request (the unique liveKey decided).
    const lost: NormalizedRequest[] = [];
    const flush = async () => {
      if (!batch.length) return;
      // Claim the externalIds first, so a live interaction is always found by its release key.
      await this.ctx.interactions.claimKeys(
        accountId,
        batch.flatMap((b) =>
          // Keys claimed up front need no second write; the others (a stale claim, or a key a release
          // earlier in this Invocation freed) are taken over now.
          b.rec.externalId !== null &&
          b.rec.state !== 'ended' &&
          keysInserted.get(b.rec.liveKey as string) !== b.rec.interactionId
            ? [{ key: b.rec.liveKey, interactionId: b.rec.interactionId }]
            : [],
        ),
      );
      const duplicates = await this.ctx.interactions.insertMany(batch.map((b) => ({ rec: b.rec, outbox: b.outbox })));
      const refusedKeyed = batch.filter((b) => duplicates.has(b.rec.interactionId) && b.rec.externalId !== null);
      const lostNow = refusedKeyed.length
        ? await this.ctx.interactions.settleRefused(
            accountId,
            refusedKeyed.map((b) => ({ key: b.rec.liveKey, interactionId: b.rec.interactionId })),
          )
        : new Set<string>();
      // The Invocation's events join those of Invocations finishing meanwhile: one produce call and one bulk
      // write clearing their outboxes (as inserted) per group.
      void this.announced.add(
        batch
          .filter((b) => !duplicates.has(b.rec.interactionId))
          .map((b) => ({ id: b.rec.interactionId, staged: { entries: b.outbox, seq: b.outbox.length } })),
      );
      for (const b of batch) {
        if (lostNow.has(b.rec.interactionId)) {
          lost.push(requests[b.index] as NormalizedRequest);
          continue;
        }
        results[b.index] = this.result(
          requests[b.index] as NormalizedRequest,
          b.rec.interactionId,
          b.rec.state === 'ended' ? 'released' : 'queued',
        );
      }
      batch = [];
    };
    for (const r of requests) {
      const claim = claims.get(r.index);
      if (!claim) continue;
      if (r.action === 'dispatch') {
        const ready = built.get(r.index);
        // Built above under the pre-assigned id; a resumed claim names an earlier attempt's id instead.
        const d =
          ready && ready.rec.interactionId === claim.interactionId
            ? ready
            : this.dispatched(
                accountId,
                r,
                claim.interactionId as string,
                provider,
                located.get(r.index) as Located,
                now,
                traceparent,
              );
        batch.push({ ...d, index: r.index });
      } else {
        await flush();
        results[r.index] = await this.release(
          accountId,
          r,
          providerName,
          live.get(keyOf(r.externalId as string)),
          traceparent,
        );
      }
    }
    await flush();

    // Only releases complete their claims: a dispatch's claim is completed by its interaction's insert (the
    // claim already holds the outcome). A lost dispatch stays pending: a retry resumes it and is told the same.
    const done: StoredOutcome[] = [];
    for (const [i, claim] of claims) {
      const res = results[i];
      const r = requests[i] as NormalizedRequest;
      if (res && r.requestId !== null && r.action === 'release')
        done.push({ ...claim, status: 'done', interactionId: res.interactionId, outcome: res.outcome });
    }
    // The outcomes and the wake are independent writes (a pass reads interactions, not the request log).
    await Promise.all([
      this.ctx.requests.complete(accountId, done),
      resolvedQueued || results.some((r) => r?.outcome === 'queued') ? this.ctx.waker.wake(accountId) : undefined,
    ]);
    if (lost.length) {
      throw routingError(
        'INVOKE.EXTERNAL_ID_IN_USE',
        lost.length === 1
          ? `externalId ${lost[0]?.externalId} already names a live interaction`
          : `${lost.length} externalIds are in use`,
        lost.map((r) => ({
          pointer: r.pointers.externalId,
          message: `externalId ${r.externalId} already names a live interaction (taken by a concurrent request)`,
        })),
      );
    }

    return requests.map((r) => {
      const p = plan[r.index] as DedupePlan;
      if (p.kind === 'process') return results[r.index] as InvokeResult;
      if (p.kind === 'same-as') return { ...(results[p.index] as InvokeResult), index: r.index, duplicate: true };
      return {
        index: r.index,
        action: p.stored.action,
        requestId: r.requestId,
        externalId: p.stored.externalId,
        interactionId: p.stored.interactionId,
        outcome: p.stored.outcome ?? 'not-found',
        duplicate: true,
      };
    });
  }

  /**
   * A pending requestId claim of this request: for a dispatch, its pre-assigned interaction id and the
   * outcome its plan gave (queued, or released when the plan ended at once).
   */
  private pending(
    r: NormalizedRequest,
    interactionId: string | null,
    outcome: StoredOutcome['outcome'],
  ): StoredOutcome {
    return {
      requestId: r.requestId as string,
      hash: r.hash,
      status: 'pending',
      action: r.action,
      externalId: r.externalId,
      interactionId,
      outcome,
    };
  }

  /**
   * The stored claims of these requestIds, as dedupe must see them: a pending dispatch claim whose
   * interaction exists (live or archived) was processed (only that claim's attempt inserts under its id),
   * so it is done with the outcome it recorded; one whose interaction does not exist is resumed. Runs only
   * for claims refused as taken (retries and concurrent duplicates), never on a new requestId.
   */
  private async settled(accountId: string, requestIds: string[]): Promise<Map<string, StoredOutcome>> {
    const stored = await this.ctx.requests.find(accountId, requestIds);
    const open = [...stored.values()].filter(
      (s) => s.status === 'pending' && s.action === 'dispatch' && s.interactionId !== null && s.outcome !== null,
    );
    if (!open.length) return stored;
    const existing = await this.ctx.interactions.existing(
      accountId,
      open.map((s) => s.interactionId as string),
    );
    for (const s of open)
      if (existing.has(s.interactionId as string)) stored.set(s.requestId, { ...s, status: 'done' });
    return stored;
  }

  /** A dispatch's new interaction (its plan run up to its first Queue applet) and the events announcing it. */
  private dispatched(
    accountId: string,
    r: NormalizedRequest,
    interactionId: string,
    provider: ProviderInfo | null,
    where: Located,
    now: number,
    traceparent: string | undefined,
  ): Dispatched {
    const t = createInteraction({
      interactionId,
      conversationId: randomUUID(),
      accountId,
      requestId: r.requestId,
      externalId: r.externalId,
      provider: provider ? { name: provider.name, permissions: provider.permissions } : null,
      route: where.route.name,
      plan: where.plan,
      type: r.type,
      linkeddata: r.linkeddata,
      skills: r.skills,
      personalQueue: r.personalQueue,
      now,
    });
    return {
      rec: t.next,
      outbox: outboxEntries(interactionTopic, toCloudEvents(accountId, interactionId, t.events, traceparent)),
    };
  }

  private result(r: NormalizedRequest, interactionId: string | null, outcome: InvokeResult['outcome']): InvokeResult {
    return {
      index: r.index,
      action: r.action,
      requestId: r.requestId,
      externalId: r.externalId,
      interactionId,
      outcome,
      duplicate: false,
    };
  }

  /** The named provider must be registered (read model of cc.provider.v1) and not deleted. */
  private async provider(accountId: string, name: string | null): Promise<ProviderInfo | null> {
    if (name === null) return null;
    const provider = await this.ctx.providers.lookup(accountId, name);
    if (!provider) {
      throw routingError(
        'INVOKE.UNKNOWN_PROVIDER',
        `Provider ${name} is not registered; register it with POST /interactions/Register`,
        [{ pointer: '/provider', message: `provider ${name} is not registered` }],
      );
    }
    return provider;
  }

  /** Locates every dispatch's route, its plan and skills; one 422 lists every unknown name. */
  private async locate(accountId: string, requests: NormalizedRequest[]): Promise<Map<number, Located>> {
    const dispatches = requests.filter((r) => r.action === 'dispatch');
    const out = new Map<number, Located>();
    if (!dispatches.length) return out;
    const routes = await this.ctx.config.routesByKeys(
      accountId,
      dispatches.map((r) => r.route as string),
    );
    const plans = await this.ctx.config.plansByKeys(
      accountId,
      [...routes.values()].map((r) => r.interactionPlan),
    );
    const named = dispatches.flatMap((r) => r.skills.map((s) => s.name));
    const skills = named.length ? await this.ctx.config.knownSkills(accountId, named) : new Map<string, string>();
    const routeErrors: FieldError[] = [];
    const skillErrors: FieldError[] = [];
    for (const r of dispatches) {
      const route = routes.get(nameKey(r.route as string));
      const plan = route ? plans.get(nameKey(route.interactionPlan)) : undefined;
      if (!route) routeErrors.push({ pointer: r.pointers.route, message: `route ${r.route} does not exist` });
      else if (!plan)
        routeErrors.push({
          pointer: r.pointers.route,
          message: `route ${route.name} points at interaction plan ${route.interactionPlan}, which does not exist`,
        });
      r.skills.forEach((s, j) => {
        const canonical = skills.get(nameKey(s.name));
        if (canonical === undefined)
          skillErrors.push({
            pointer: `/requests/${r.index}/routingdata/skills/${j}/name`,
            message: `skill ${s.name} is not configured`,
          });
        else s.name = canonical;
      });
      if (route && plan) out.set(r.index, { route, plan });
    }
    if (routeErrors.length) {
      const first = routeErrors[0] as FieldError;
      throw routingError(
        'ROUTING.UNKNOWN_ROUTE',
        routeErrors.length === 1
          ? first.message.replace(/^route/, 'Route')
          : `${routeErrors.length} routes cannot be located`,
        [...routeErrors, ...skillErrors],
      );
    }
    if (skillErrors.length)
      throw routingError('ROUTING.UNKNOWN_SKILL', `${skillErrors.length} skill(s) are not configured`, skillErrors);
    return out;
  }

  /**
   * A requestId's claim was taken by another request and withdrawn again before we read it (that request
   * was refused): the simplest honest answer is a retryable conflict.
   */
  private raced(requests: NormalizedRequest[], gone: Set<string>): never {
    const errors = requests
      .filter((r) => r.requestId !== null && gone.has(r.requestId))
      .map((r) => ({
        pointer: r.pointers.requestId,
        message: `requestId ${r.requestId} is being processed by a concurrent request`,
      }));
    throw routingError(
      'INVOKE.REQUEST_ID_CONFLICT',
      'A concurrent request is processing the same requestId; retry to get its outcome',
      errors,
    );
  }

  /**
   * Release by externalId, for the provider the interaction was dispatched with (`target`: the live
   * interaction under that key when the Invocation was checked; one dispatched earlier in the same
   * Invocation is looked up again).
   */
  private async release(
    accountId: string,
    r: NormalizedRequest,
    provider: string | null,
    target: string | undefined,
    traceparent?: string,
  ): Promise<InvokeResult> {
    const key = releaseKey(provider, r.externalId as string);
    const interactionId = target ?? (await this.ctx.interactions.liveKeys(accountId, [key])).get(key);
    if (!interactionId) return this.result(r, null, 'not-found');
    let released = false;
    try {
      await this.actions.apply(
        accountId,
        interactionId,
        (cur) => {
          // Decided afresh on every attempt; only the attempt that was written counts.
          released = cur.state !== 'ended' && cur.liveKey === key;
          return released ? apiRelease(cur, Date.now()) : { next: cur, events: [] };
        },
        traceparent ? { traceparent } : {},
      );
      return released ? this.result(r, interactionId, 'released') : this.result(r, null, 'not-found');
    } catch (err) {
      if ((err as { code?: string }).code === 'REQUEST.NOT_FOUND') return this.result(r, null, 'not-found');
      throw err;
    }
  }
}
