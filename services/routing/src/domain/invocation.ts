import { createHash } from 'node:crypto';
import type { InteractionRequest } from '@cc/contracts';
import { routingError } from './errors';
import type { InteractionType, LinkedDataItem, PersonalQueue, SkillRequirement } from './types';

/** One Interaction object of an Invocation as validated by the contracts (either spelling of the ids). */
export type RawInteraction = InteractionRequest;

/** An Interaction object with one spelling, defaults applied, and its fingerprint for requestId dedupe. */
export interface NormalizedRequest {
  index: number;
  action: 'dispatch' | 'release';
  requestId: string | null;
  externalId: string | null;
  route: string | null;
  type: InteractionType;
  linkeddata: LinkedDataItem[];
  skills: SkillRequirement[];
  personalQueue: PersonalQueue | null;
  /** sha256 of the canonical body (provider included): equal bodies, equal hashes. */
  hash: string;
  /** JSON pointers to the ids as the client spelt them (requestId or requestid, externalId or externalid). */
  pointers: { requestId: string; externalId: string; route: string };
}

/** JSON with object keys sorted at every level, so equal values serialise equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Normalises every object of an Invocation (already valid against the contract schema). */
export function normalizeInvocation(body: { provider?: string; requests: RawInteraction[] }): {
  provider: string | null;
  requests: NormalizedRequest[];
} {
  const provider = body.provider ?? null;
  const requests = body.requests.map((raw, index): NormalizedRequest => {
    const action = raw.action ?? 'dispatch';
    const requestId = raw.requestId ?? raw.requestid ?? null;
    const externalId = raw.externalId ?? raw.externalid ?? null;
    const rd = raw.routingdata ?? {};
    const canonical = {
      provider,
      action,
      requestId,
      externalId,
      route: raw.route ?? null,
      linkeddata: raw.linkeddata ?? [],
      routingdata: rd,
    };
    return {
      index,
      action,
      requestId,
      externalId,
      route: raw.route ?? null,
      type: rd.interactiontype ?? 'nonlive',
      linkeddata: raw.linkeddata ?? [],
      skills: (rd.skills ?? []).map((s) => ({ name: s.name, expiryafter: s.expiryafter ?? null })),
      personalQueue: rd.personalqueue ?? null,
      hash: createHash('sha256').update(canonicalJson(canonical)).digest('base64url'),
      pointers: {
        requestId: `/requests/${index}/${raw.requestid !== undefined ? 'requestid' : 'requestId'}`,
        externalId: `/requests/${index}/${raw.externalid !== undefined ? 'externalid' : 'externalId'}`,
        route: `/requests/${index}/route`,
      },
    };
  });
  return { provider, requests };
}

/** The stored outcome of an earlier object with the same requestId. */
export interface StoredOutcome {
  requestId: string;
  hash: string;
  /** Pending: claimed by an attempt that did not finish (resumed with the same interaction id). */
  status: 'pending' | 'done';
  action: 'dispatch' | 'release';
  externalId: string | null;
  interactionId: string | null;
  outcome: 'queued' | 'released' | 'not-found' | null;
}

/** What to do with each object after requestId dedupe. */
export type DedupePlan =
  | { kind: 'process'; resume: StoredOutcome | null }
  | { kind: 'same-as'; index: number }
  | { kind: 'stored'; stored: StoredOutcome };

/**
 * Dedupe by requestId (per account): a requestId seen in an earlier Invocation returns its stored
 * outcome and is not processed; within one Invocation only the first object of a requestId is processed.
 * The same requestId with a different body is a conflict (409) and nothing is processed.
 */
export function planDedupe(requests: NormalizedRequest[], stored: Map<string, StoredOutcome>): DedupePlan[] {
  const conflicts: { pointer: string; message: string }[] = [];
  const firstIndex = new Map<string, number>();
  const plan = requests.map((r): DedupePlan => {
    if (r.requestId === null) return { kind: 'process', resume: null };
    const pointer = r.pointers.requestId;
    const earlier = stored.get(r.requestId);
    if (earlier && earlier.hash !== r.hash) {
      conflicts.push({ pointer, message: `requestId ${r.requestId} was already used with a different body` });
      return { kind: 'stored', stored: earlier };
    }
    const first = firstIndex.get(r.requestId);
    if (first !== undefined) {
      if (requests[first]?.hash !== r.hash) {
        conflicts.push({
          pointer,
          message: `requestId ${r.requestId} is used by request ${first} with a different body`,
        });
      }
      return { kind: 'same-as', index: first };
    }
    firstIndex.set(r.requestId, r.index);
    if (earlier?.status === 'done') return { kind: 'stored', stored: earlier };
    return { kind: 'process', resume: earlier ?? null };
  });
  if (conflicts.length) {
    throw routingError(
      'INVOKE.REQUEST_ID_CONFLICT',
      conflicts.length === 1
        ? (conflicts[0]?.message as string)
        : `${conflicts.length} requestIds were reused with a different body`,
      conflicts,
    );
  }
  return plan;
}

/**
 * Checks externalIds of dispatches against the live interactions (per provider), in request order so a
 * release earlier in the same Invocation frees its externalId. Throws INVOKE.EXTERNAL_ID_IN_USE (409).
 */
export function assertExternalIdsFree(
  requests: NormalizedRequest[],
  plan: DedupePlan[],
  liveKeys: Set<string>,
  keyOf: (externalId: string) => string,
): void {
  const live = new Set(liveKeys);
  const errors: { pointer: string; message: string }[] = [];
  for (const r of requests) {
    if (plan[r.index]?.kind !== 'process' || r.externalId === null) continue;
    const key = keyOf(r.externalId);
    if (r.action === 'release') live.delete(key);
    else if (live.has(key) && (plan[r.index] as { resume: StoredOutcome | null }).resume === null) {
      errors.push({
        pointer: r.pointers.externalId,
        message: `externalId ${r.externalId} already names a live interaction`,
      });
    } else live.add(key);
  }
  if (errors.length) {
    throw routingError(
      'INVOKE.EXTERNAL_ID_IN_USE',
      errors.length === 1 ? (errors[0]?.message as string) : `${errors.length} externalIds are in use`,
      errors,
    );
  }
}
