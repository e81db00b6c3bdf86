import type { EffectivePermissions, LinkedDataItem } from '@cc/contracts';
/** The interaction types of the spec: live (calls), chat (semiLive) and nonlive (nonLive) capacity. */
export type InteractionType = 'live' | 'chat' | 'nonlive';

/** Agent presence states; only Ready is eligible for routing. */
export type Presence = 'Ready' | 'Away' | 'ExtendedAway' | 'LoggedOut';

/** Lifecycle states of an interaction inside routing. */
export type InteractionState = 'queued' | 'offered' | 'connected' | 'held' | 'wrap' | 'ended';

/** Concurrent interactions per capacity bucket. */
export interface Capacity {
  calls: number;
  semiLive: number;
  nonLive: number;
}

/** A capacity bucket name. */
export type CapacityKey = keyof Capacity;

/** A skill required of (or preferred for) an interaction: `expiryafter` null = mandatory, 0 = optional. */
export interface SkillRequirement {
  name: string;
  expiryafter: number | null;
}

/** The preferred agent of an interaction and how long the preference holds (seconds from queue entry). */
export interface PersonalQueue {
  agent: string;
  loggedintimeout: number;
  loggedouttimeout: number;
}

/** The provider permissions an agent action is checked against. */
export type { EffectivePermissions };

/** An agent operation subject to provider permissions. */
export type AgentOperation = keyof EffectivePermissions;

/** The agent-activity segments of an interaction leg. */
export type Segment = 'Ringing' | 'Connected' | 'Wrap' | 'HeldExternalParty';

/** How an offer ended (agent summaries' `offered` types); null = withdrawn (released while ringing). */
export type OfferOutcome = 'Answered' | 'Unexpected' | 'Failed' | null;

/** Why an offer ended without acceptance. */
export type OfferEndReason = 'rejected' | 'timed-out' | 'agent-unavailable' | 'system-failure' | 'withdrawn';

/** One moment of an agent leg: a segment starts or ends, at an exact epoch-millisecond instant. */
export interface Milestone {
  kind: 'start' | 'end';
  segment: Segment;
  at: number;
  /** Ringing ends only. */
  outcome?: OfferOutcome;
  reason?: OfferEndReason;
}

/**
 * One agent's part in an interaction (a channel): its timeline of segments. The interaction owns it;
 * the agent's work list follows it (see reconcileAgentWork), so both agree after any crash.
 */
export interface Leg {
  channelId: string;
  offerId: string;
  agentId: string;
  agentUsername: string;
  timeline: Milestone[];
  /** The agent's work on this leg is over (ring ended unanswered, or connected/wrap finished). */
  done: boolean;
}

/** An interaction an agent holds (ringing, connected, held or in wrap): counts against capacity. */
export interface WorkItem {
  interactionId: string;
  channelId: string;
  offerId: string;
  type: InteractionType;
  /** How many of the leg's milestones have been announced as agent-activity events. */
  cursor: number;
  reservedAt: number;
  /** What the agent desktop shows of the offer while it rings (set at reservation). */
  offer?: OfferSummary;
}

/** What an offer is, kept on the agent with its reservation (its expiry bounds an accept's wait for the offer write). */
export interface OfferSummary {
  route: string;
  provider: string | null;
  offeredAt: number;
  expiresAt: number;
  linkeddata: LinkedDataItem[];
}

/** An agent as routing keeps it. Times are epoch milliseconds. */
export interface AgentRecord {
  agentId: string;
  accountId: string;
  username: string;
  displayName: string | null;
  skills: { name: string; level: number }[];
  capacity: Capacity;
  presence: Presence;
  presenceReason: string | null;
  presenceSince: number;
  everLoggedIn: boolean;
  /** Later of: became Ready, last offer made to the agent, last work finished. Longest idle = smallest. */
  idleSince: number;
  /** Consecutive offers not answered before the timeout. */
  missedOffers: number;
  work: WorkItem[];
  workloadSince: number | null;
  activitySeq: number;
  createdAt: number;
  version: number;
}

/** One applet of an interaction plan (as stored; shape validated by the contracts). */
export type Applet =
  | { type: 'SetDataSource'; name: string; dataSource: string; fromProperty: string }
  | { type: 'SkillTagger'; name: string; skills: { name: string; expiryafter?: number }[] }
  | {
      type: 'Queue';
      name: string;
      virtualQueue?: string;
      timeoutSeconds?: number;
      onTimeout?: { action: 'next' | 'goto' | 'release'; target?: string };
    }
  | { type: 'CallRecording'; name: string; enabled?: boolean }
  | { type: 'Announcement'; name: string; message: string }
  | { type: 'Menu'; name: string; prompt: string; options: { digit: string; goto: string }[] };

/** An interaction plan: applets run in order. */
export interface Plan {
  name: string;
  reportingGroup: string | null;
  applets: Applet[];
}

/** A linkeddata item of an Invoke request (the contracts' type). */
export type { LinkedDataItem };

/** One candidate of a routing decision and why it was not eligible (null = eligible). */
export interface CandidateTrace {
  agentId: string;
  username: string;
  excluded: string | null;
  idleMs: number;
  optionalSkillsMatched: number;
}

/** A routing decision: the candidates, exclusions, winner and the rule that chose it. */
export interface Decision {
  at: number;
  rule: string;
  interactionType: InteractionType;
  candidates: CandidateTrace[];
  winner: string | null;
}

/** The Queue applet an interaction waits in. */
export interface QueuePosition {
  appletIndex: number;
  name: string;
  virtualQueue: string;
  enteredAt: number;
  timeoutAt: number | null;
}

/** The offer ringing at an agent. */
export interface Offer {
  offerId: string;
  agentId: string;
  agentUsername: string;
  channelId: string;
  offeredAt: number;
  expiresAt: number;
  attempt: number;
  rule: string;
}

/** The agent an interaction is assigned to (after accept). */
export interface Assignment {
  agentId: string;
  agentUsername: string;
  channelId: string;
  offerId: string;
  connectedAt: number;
  heldAt: number | null;
  wrapAt: number | null;
}

/** An interaction as routing keeps it. Times are epoch milliseconds. */
export interface InteractionRecord {
  interactionId: string;
  accountId: string;
  conversationId: string;
  requestId: string | null;
  externalId: string | null;
  provider: string | null;
  /** Provider permissions at dispatch (used if the provider is deleted later). */
  permissions: EffectivePermissions | null;
  type: InteractionType;
  medium: string;
  /** The route it is in now (a transfer to a route changes it). */
  route: string;
  /** The route it was dispatched through (absent on records stored before it was kept: `route` then). */
  dispatchRoute?: string;
  plan: Plan;
  linkeddata: LinkedDataItem[];
  dataSources: { name: string; value: string | null }[];
  /** Skills from the Invoke routingdata (kept for a transfer to another route). */
  baseSkills: SkillRequirement[];
  skills: SkillRequirement[];
  personalQueue: PersonalQueue | null;
  recording: boolean;
  state: InteractionState;
  createdAt: number;
  /** Entry into the current queue: skill expiry and personal-queue timeouts count from here. */
  queuedAt: number | null;
  queue: QueuePosition | null;
  offer: Offer | null;
  agent: Assignment | null;
  legs: Leg[];
  offerAttempts: number;
  unexpectedOffers: number;
  decisions: Decision[];
  lastDecisionSig: string | null;
  endedAt: number | null;
  /** Unique per account while live (`live:<provider>\u001f<externalId>`: U+001F, which no provider name holds and, unlike U+0000, PostgreSQL jsonb stores), else `none:<interactionId>`. */
  liveKey: string;
  /** Agents whose work list must follow the last change of this interaction (reconciled right after it). */
  syncAgents: string[];
  /** Interaction event sequence (last used). */
  seq: number;
  version: number;
}

/** An event produced by the domain: CloudEvents type, the aggregate it is about, and its data. */
export interface DomainEvent {
  type: string;
  at: number;
  data: Record<string, unknown>;
}
