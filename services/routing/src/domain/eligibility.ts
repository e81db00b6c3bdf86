import { nameKey } from './names';
import type {
  CandidateTrace,
  Capacity,
  CapacityKey,
  Decision,
  InteractionType,
  PersonalQueue,
  Presence,
  SkillRequirement,
} from './types';

/** The capacity bucket an interaction type uses: live → calls, chat → semiLive, nonlive → nonLive. */
export function capacityKeyOf(type: InteractionType): CapacityKey {
  return type === 'live' ? 'calls' : type === 'chat' ? 'semiLive' : 'nonLive';
}

/** What a routing decision needs of an agent. */
export interface AgentView {
  agentId: string;
  username: string;
  presence: Presence;
  capacity: Capacity;
  workload: Capacity;
  /** Skill names the agent holds (any case). */
  skills: string[];
  idleSince: number;
}

/** What a routing decision needs of a queued interaction. */
export interface RoutingRequest {
  type: InteractionType;
  /** Queue entry (epoch ms); skill expiry and personal-queue timeouts count from here. */
  queuedAt: number;
  skills: SkillRequirement[];
  personalQueue: PersonalQueue | null;
  /** Agents who rejected this interaction, not offered it again until `until` (epoch ms). */
  declined?: { agentId: string; until: number }[];
}

/** Seconds spent in queue at `now` (fractional). */
function secondsInQueue(req: RoutingRequest, now: number): number {
  return Math.max(0, now - req.queuedAt) / 1000;
}

/**
 * Splits the interaction's skills at `now`: mandatory ones (no expiryafter, or expiryafter > 0 and not
 * yet elapsed since queue entry) must all be held; optional ones (expiryafter 0, or expired) rank.
 */
export function skillsAt(req: RoutingRequest, now: number): { required: string[]; optional: string[] } {
  const elapsed = secondsInQueue(req, now);
  const required: string[] = [];
  const optional: string[] = [];
  for (const s of req.skills) {
    if (s.expiryafter === null || (s.expiryafter > 0 && elapsed < s.expiryafter)) required.push(s.name);
    else optional.push(s.name);
  }
  return { required, optional };
}

/** How the personal queue constrains routing at `now`. */
export type PersonalQueueMode =
  | { kind: 'none' }
  | { kind: 'only'; agent: string; agentId: string; until: number }
  | { kind: 'wait'; agent: string; until: number };

/**
 * Personal queue (ARCHITECTURE §4): while the named agent is logged in, only they may take the
 * interaction for `loggedintimeout` seconds from queue entry; while they are logged out (or unknown),
 * the interaction waits up to `loggedouttimeout` seconds; after that, normal routing.
 */
export function personalQueueMode(req: RoutingRequest, agents: AgentView[], now: number): PersonalQueueMode {
  const pq = req.personalQueue;
  if (!pq) return { kind: 'none' };
  const elapsed = secondsInQueue(req, now);
  const target = agents.find((a) => nameKey(a.username) === nameKey(pq.agent));
  const loggedIn = target !== undefined && target.presence !== 'LoggedOut';
  if (loggedIn && elapsed < pq.loggedintimeout) {
    return {
      kind: 'only',
      agent: target.username,
      agentId: target.agentId,
      until: req.queuedAt + pq.loggedintimeout * 1000,
    };
  }
  if (!loggedIn && elapsed < pq.loggedouttimeout) {
    return { kind: 'wait', agent: target?.username ?? pq.agent, until: req.queuedAt + pq.loggedouttimeout * 1000 };
  }
  return { kind: 'none' };
}

/**
 * Why an agent cannot take the interaction now, or null when eligible. Checked in order: personal
 * queue, presence, a recent rejection of this interaction, capacity for the type, mandatory skills. Within its personal-queue window the named
 * agent needs presence and capacity but not the skills: the client asked for that person.
 */
export function exclusionReason(
  agent: AgentView,
  req: RoutingRequest,
  mode: PersonalQueueMode,
  required: string[],
  now = 0,
): string | null {
  if (mode.kind === 'wait') return `personal queue: waiting for ${mode.agent} (logged out)`;
  if (mode.kind === 'only' && agent.agentId !== mode.agentId) return `personal queue reserved for ${mode.agent}`;
  if (agent.presence !== 'Ready') return `presence ${agent.presence}`;
  if (req.declined?.some((d) => d.agentId === agent.agentId && d.until > now))
    return 'rejected this interaction recently';
  const key = capacityKeyOf(req.type);
  if (agent.workload[key] >= agent.capacity[key]) {
    return `no free ${key} capacity (${agent.workload[key]}/${agent.capacity[key]})`;
  }
  if (mode.kind === 'only') return null;
  const held = new Set(agent.skills.map(nameKey));
  const missing = required.filter((s) => !held.has(nameKey(s)));
  if (missing.length) return `missing skill ${missing.join(', ')}`;
  return null;
}

/** How many of the optional skills the agent holds. */
export function optionalMatched(agent: AgentView, optional: string[]): number {
  const held = new Set(agent.skills.map(nameKey));
  return optional.filter((s) => held.has(nameKey(s))).length;
}

/**
 * Ranks eligible agents: more optional skills first, then longest idle (earliest idleSince), then
 * username and id so ties are deterministic.
 */
export function rankCandidates<T extends { agent: AgentView; optional: number }>(eligible: T[]): T[] {
  return [...eligible].sort(
    (a, b) =>
      b.optional - a.optional ||
      a.agent.idleSince - b.agent.idleSince ||
      nameKey(a.agent.username).localeCompare(nameKey(b.agent.username)) ||
      a.agent.agentId.localeCompare(b.agent.agentId),
  );
}

/**
 * Decides who gets the interaction at `now`: every agent of the account is a candidate, each exclusion
 * is explained, and the rule that picked the winner is named (personal-queue, optional-skills-rank,
 * longest-idle) or why nobody was picked (personal-queue-wait, no-eligible-agent).
 */
export function decide(req: RoutingRequest, agents: AgentView[], now: number): Decision {
  const mode = personalQueueMode(req, agents, now);
  const { required, optional } = skillsAt(req, now);
  const candidates: CandidateTrace[] = [];
  const eligible: { agent: AgentView; optional: number }[] = [];
  for (const agent of agents) {
    const excluded = exclusionReason(agent, req, mode, required, now);
    const matched = optionalMatched(agent, optional);
    candidates.push({
      agentId: agent.agentId,
      username: agent.username,
      excluded,
      idleMs: Math.max(0, now - agent.idleSince),
      optionalSkillsMatched: matched,
    });
    if (excluded === null) eligible.push({ agent, optional: matched });
  }
  const ranked = rankCandidates(eligible);
  const top = ranked[0];
  let rule: string;
  if (!top) rule = mode.kind === 'wait' ? 'personal-queue-wait' : 'no-eligible-agent';
  else if (mode.kind === 'only') rule = 'personal-queue';
  else if (ranked.some((c) => c.optional < top.optional)) rule = 'optional-skills-rank';
  else rule = 'longest-idle';
  return { at: now, rule, interactionType: req.type, candidates, winner: top?.agent.agentId ?? null };
}

/**
 * The rule `decide` gives when it is certain, without weighing each agent, that nobody wins: no agent is
 * Ready with room for the interaction's type (every way to be eligible needs both). Null when some agent
 * might be eligible. A routing pass uses it to skip the full decision (a trace line per agent) for a queue
 * nobody can take now, unless that rule is new for the interaction.
 */
export function ruleWithoutRoom(req: RoutingRequest, agents: AgentView[], now: number): string | null {
  const key = capacityKeyOf(req.type);
  if (agents.some((a) => a.presence === 'Ready' && a.workload[key] < a.capacity[key])) return null;
  return personalQueueMode(req, agents, now).kind === 'wait' ? 'personal-queue-wait' : 'no-eligible-agent';
}

/**
 * The next instant after `now` at which the decision for this interaction could change by time alone
 * (a skill expires, a personal-queue window closes, a rejection cooldown ends), or null if none.
 */
export function nextRoutingChangeAt(req: RoutingRequest, now: number): number | null {
  const times: number[] = [];
  for (const s of req.skills) if (s.expiryafter) times.push(req.queuedAt + s.expiryafter * 1000);
  if (req.personalQueue) {
    times.push(req.queuedAt + req.personalQueue.loggedintimeout * 1000);
    times.push(req.queuedAt + req.personalQueue.loggedouttimeout * 1000);
  }
  for (const d of req.declined ?? []) times.push(d.until);
  const future = times.filter((t) => t > now);
  return future.length ? Math.min(...future) : null;
}

/** A stable signature of a decision without times, so an unchanged non-assignment is not recorded twice. */
export function decisionSignature(d: Decision): string {
  return JSON.stringify([d.rule, d.winner, d.candidates.map((c) => [c.agentId, c.excluded])]);
}
