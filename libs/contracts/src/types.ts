// TypeScript types of the main payloads, written by hand to match the schemas. Nothing checks the two agree in
// general: only the typed examples of src/examples.ts are validated against their schemas (test/examples.test.ts),
// which catches a type that misses a field a schema requires, not a type that allows what a schema refuses.

/** The interaction type values. */
export type InteractionType = 'live' | 'chat' | 'nonlive';

/** One linkeddata item of an Interaction object. */
export type LinkedDataItem =
  | { type: 'clid' | 'name' | 'mediatype'; value: string }
  | { type: 'url'; label: string; value?: string }
  | { type: 'interactionproperty'; key: string; value: string };

/** A skill added to an interaction (expiryafter 0 = optional, omitted = mandatory). */
export interface SkillRequirement {
  name: string;
  expiryafter?: number;
}

/** The preferred agent of an interaction. */
export interface PersonalQueue {
  agent: string;
  loggedintimeout: number;
  loggedouttimeout: number;
}

/** Routing hints of an Interaction object. */
export interface RoutingData {
  interactiontype?: InteractionType;
  skills?: SkillRequirement[];
  personalqueue?: PersonalQueue;
}

/** One Interaction object of an Invocation (after validation `action` is always set). */
export interface InteractionRequest {
  action?: 'dispatch' | 'release';
  requestId?: string;
  requestid?: string;
  externalId?: string;
  externalid?: string;
  route?: string;
  linkeddata?: LinkedDataItem[];
  routingdata?: RoutingData;
}

/** The body of POST /interactions/Invoke. */
export interface Invocation {
  provider?: string;
  requests: InteractionRequest[];
}

/** The outcome of one Interaction object. */
export interface InvokeResult {
  index: number;
  action: 'dispatch' | 'release';
  requestId: string | null;
  externalId: string | null;
  interactionId: string | null;
  outcome: 'queued' | 'released' | 'not-found';
  duplicate: boolean;
}

/** The 202 body of POST /interactions/Invoke. */
export interface InvokeResponse {
  results: InvokeResult[];
}

/** Provider headers as a map or as key-value pairs. */
export type ProviderHeaders = Record<string, string> | { key: string; value: string }[];

/** The agent operations a provider permits (0 or 1). */
export interface AgentActionsPermitted {
  release?: 0 | 1;
  hold?: 0 | 1;
  transferToAgent?: 0 | 1;
  transferToRoute?: 0 | 1;
}

/** The body of POST /interactions/Register. */
export interface ProviderSettings {
  provider: string;
  endpoint?: string | null;
  headers?: ProviderHeaders;
  agentactionspermitted: AgentActionsPermitted;
}

/** Effective permissions computed from agentactionspermitted. */
export interface EffectivePermissions {
  release: boolean;
  hold: boolean;
  retrieve: boolean;
  transferToAgent: boolean;
  transferToRoute: boolean;
}

/** A registered provider as the API shows it (header values redacted). */
export interface ProviderView {
  provider: string;
  endpoint: string | null;
  headers: Record<string, '<redacted>'>;
  agentactionspermitted: AgentActionsPermitted;
  permissions: EffectivePermissions;
  signingSecret?: string;
  createdAt: string;
  updatedAt: string;
}

/** One provider notification (the notifier POSTs an array of these). */
export interface ProviderNotification {
  notification: 'AssignToAgent' | 'Release';
  objectid: string;
  notificationid: string;
  externalId: string | null;
  params: {
    AccountName: string;
    AccountId: string;
    Agent: string;
    AgentId: string;
    Provider?: string;
    Route?: string | null;
    InteractionType: InteractionType;
    RequestId?: string | null;
    OccurredAt: string;
    ReleasedBy?: 'agent' | 'api' | 'system';
    [extra: string]: unknown;
  };
}

/** Paging parameters after validation (defaults applied). */
export interface PagingQuery {
  page: number;
  limit: number;
}

/** Query of GET /stats/wfm/agent-summaries after validation. */
export interface AgentSummariesQuery extends PagingQuery {
  start: string;
  end?: string;
  cadence: 15;
  agentId?: string;
  revisedSince?: string;
}

/** The selection of a statistics window. */
export type Include = 'Started' | 'StartedOrEnded' | 'Processed';

/** Query of GET /stats/agent-activities after validation. */
export interface AgentActivitiesQuery extends PagingQuery {
  start: string;
  end?: string;
  include: Include;
  agentId?: string;
  type?: 'Presence' | 'Workload' | 'Interaction';
}

/** Query of GET /stats/interactions after validation. */
export interface StatsInteractionsQuery extends PagingQuery {
  start: string;
  end?: string;
  include: Include;
}

/** The paging envelope's meta. */
export interface PageMeta {
  page: number;
  count: number;
  pageCount: number;
  totalCount: number;
}

/** A listing envelope. */
export interface Page<T> {
  meta: PageMeta;
  items: T[];
  upTo: string;
}

interface DirectionBreakdown {
  inbound: number;
  outbound: number;
  internal: number;
}

/** One agent's activity over one 15-minute period. */
export interface AgentSummary {
  agentId: string;
  timestamp: string;
  /** Grows each time an event changes the summary (this suite's addition). */
  revision: number;
  interactions: {
    handleTime: ({
      type: 'Ringing' | 'Connected' | 'Wrap' | 'HeldExternalParty';
      totalTime: number;
    } & DirectionBreakdown)[];
    offered: ({ type: 'Answered' | 'Unexpected' | 'Failed'; count: number } & DirectionBreakdown)[];
    actions: ({ type: 'HoldExternalParty'; count: number } & DirectionBreakdown)[];
  };
  presence: { states: { type: PresenceState; totalTime: number; count: number }[] };
}

/** The 200 body of GET /stats/wfm/agent-summaries. */
export interface AgentSummariesResponse extends Page<AgentSummary> {
  cadence: 15;
}

/** Agent presence states. */
export type PresenceState = 'Ready' | 'Away' | 'ExtendedAway' | 'LoggedOut';

/** Workload counts per interaction type. */
export interface Workload {
  calls: number;
  semiLive: number;
  nonLive: number;
}

/** One statistics agent activity. */
export interface AgentActivity {
  agentId: string;
  type: 'Presence' | 'Workload' | 'Interaction';
  category: string | null;
  name: string | null;
  eligibleForRouting: boolean | null;
  start: string;
  status: string | null;
  duration: number;
  reason: string | null;
  interaction: { guid: string; medium: string; mediumManager: string; direction: string } | null;
  channel: { guid: string | null } | null;
  workload: Workload | null;
}

/** One event of a channel of an interaction record. */
export interface ChannelEvent {
  type: string;
  offset: number;
  name: string | null;
  duration: number;
  properties: {
    reportingGroup?: string | null;
    appletType?: string;
    value?: string | null;
    interactionPlan?: string | null;
    virtualQueues?: string[];
    presentedSkills?: string[];
    result?: string;
  } | null;
}

/** One channel of an interaction record. */
export interface Channel {
  guid: string;
  offset: number;
  duration: number;
  endReason: string | null;
  party: { id: string | null; role: string; touchpoint: string | null };
  events: ChannelEvent[];
}

/** One statistics interaction record. */
export interface InteractionRecord {
  guid: string;
  conversationGuid: string;
  status: string;
  medium: string;
  mediumManager: string;
  start: string;
  duration: number;
  direction: string;
  serviceName: string | null;
  connectTo: string | null;
  connectFrom: string | null;
  interactionPlanMapping: {
    addressName: string | null;
    mappingName: string | null;
    interactionPlanName: string | null;
  };
  channels: Channel[];
}

/** Query of the conversation analyzer after validation. */
export interface AnalysisQuery {
  transcript: boolean;
}

/** Query of the conversation analyzer list endpoint after validation. */
export interface AnalysisListQuery extends AnalysisQuery {
  calls: string;
}

/** Seconds of a call by who was talking. */
export interface CallTimeBreakDown {
  agent: number;
  customer: number;
  silence: number;
  crossTalk: number;
}

interface AnalysisItemBase<C> {
  categories: C[];
  guid: string;
  status: 'processing' | 'processed' | 'failed';
  confidence: 'High' | 'Medium' | 'Low' | null;
  callTimeBreakDown: CallTimeBreakDown;
  transcript: string | null;
}

/** Analysis item v1. */
export type AnalysisItemV1 = AnalysisItemBase<{ category: string; subcategories: string[] }>;
/** Analysis item v2. */
export type AnalysisItemV2 = AnalysisItemBase<{ category: string; categories: { name: string; matches: string }[] }>;
/** Analysis item v3. */
export type AnalysisItemV3 = AnalysisItemV2 & { language: string | null };

/** v0 agent state record. */
export interface V0AgentState {
  agentId: string;
  groupId: string | null;
  stateChangedAt: string;
  state: string;
  duration: string;
  callGuid?: string;
}

/** v0 outbound call record. */
export interface V0OutboundCall {
  callGuid: string;
  callStartedAt: string;
  state: string;
  agentId: string;
  destination: string;
  ringDuration: string;
  duration: string;
}

/** v0 inbound call record. */
export interface V0InboundCall {
  connectedTo: string;
  serviceName: string | null;
  callGuid: string;
  origin: string;
  stateChangedAt: string;
  sequence: number;
  appletName: string | null;
  event: string;
  state: string;
  ringDuration?: string;
  duration: string;
  additionalParameters?: Record<string, string>;
}

/** v0 statistics query after validation. */
export interface V0StatisticsQuery {
  interval?: number;
  latest?: true;
  start?: string;
  end?: string;
}

/** 200 body of POST /Auth/connect/token. */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: 7200;
  scope: string;
}

/** A CloudEvents 1.0 structured-mode event of this suite. */
export interface CloudEvent<T = unknown, Type extends string = string> {
  specversion: '1.0';
  id: string;
  source: string;
  type: Type;
  time: string;
  subject: string;
  accountid: string;
  datacontenttype: 'application/json';
  dataschema?: string;
  traceparent?: string;
  data: T;
}

/** The sealed (encrypted) header values and signing secrets of a provider event. */
export interface SealedSecrets {
  kid: string;
  alg: 'A256GCM';
  iv: string;
  ciphertext: string;
  tag: string;
}

/** Data of provider.registered and provider.updated. */
export interface ProviderStateData {
  provider: string;
  endpoint: string | null;
  headerNames: string[];
  agentactionspermitted: AgentActionsPermitted;
  permissions: EffectivePermissions;
  sealed: SealedSecrets;
  version: number;
  occurredAt: string;
  reason?: 're-registered' | 'signing-secret-rotated';
}

/** Data of provider.deleted. */
export interface ProviderDeletedData {
  provider: string;
  version: number;
  occurredAt: string;
}

/** Fields every interaction event's data carries. */
export interface InteractionEventCore {
  interactionId: string;
  conversationId: string;
  externalId: string | null;
  provider: string | null;
  interactionType: InteractionType;
  medium: string;
  mediumManager: string;
  direction: 'Inbound' | 'Outbound' | 'Internal';
  occurredAt: string;
  sequence: number;
}

/** Agent fields of agent-bound interaction events. */
export interface AgentRef {
  agentId: string;
  agentUsername: string;
  channelId: string;
}

/** Data of interaction.queued. */
export interface InteractionQueuedData extends InteractionEventCore {
  requestId: string | null;
  route: string;
  interactionPlan: string;
  reportingGroup?: string | null;
  serviceName?: string | null;
  connectTo?: string | null;
  connectFrom?: string | null;
  interactionPlanMapping?: {
    addressName: string | null;
    mappingName: string | null;
    interactionPlanName: string | null;
  };
  linkeddata?: LinkedDataItem[];
  skills: { name: string; expiryafter: number | null }[];
  personalQueue: PersonalQueue | null;
}

/** Data of interaction.applet-executed. */
export interface InteractionAppletExecutedData extends InteractionEventCore {
  interactionPlan: string;
  reportingGroup?: string | null;
  applet: { name: string; type: string };
  startedAt: string;
  durationMs: number;
  dataSource?: { name: string; value: string | null } | null;
  queue?: {
    virtualQueues: string[];
    presentedSkills: string[];
    result?: 'Delivered' | 'TimedOut' | 'Released' | null;
  } | null;
}

/** Data of interaction.offered. */
export interface InteractionOfferedData extends InteractionEventCore, AgentRef {
  offerId: string;
  expiresAt: string;
  rule: string;
  attempt: number;
}

/** Data of interaction.assigned (the agent accepted). */
export interface InteractionAssignedData extends InteractionEventCore, AgentRef {
  offerId: string;
  ringingMs: number;
}

/** Data of interaction.rejected. */
export interface InteractionRejectedData extends InteractionEventCore, AgentRef {
  offerId: string;
  ringingMs: number;
  reason: 'rejected' | 'timed-out' | 'agent-unavailable' | 'system-failure';
  outcome: 'Unexpected' | 'Failed';
}

/** Data of interaction.held. */
export type InteractionHeldData = InteractionEventCore & AgentRef;

/** Data of interaction.retrieved. */
export interface InteractionRetrievedData extends InteractionEventCore, AgentRef {
  heldMs: number;
}

/** Data of interaction.transferred. */
export interface InteractionTransferredData extends InteractionEventCore, AgentRef {
  target: { kind: 'agent' | 'route'; agentUsername?: string; route?: string };
}

/** Data of interaction.wrap-started. */
export interface InteractionWrapStartedData extends InteractionEventCore, AgentRef {
  connectedMs: number;
}

/** Data of interaction.wrap-ended. */
export interface InteractionWrapEndedData extends InteractionEventCore, AgentRef {
  wrapMs: number;
}

/** Data of interaction.released. */
export interface InteractionReleasedData extends InteractionEventCore {
  releasedBy: 'agent' | 'api' | 'system';
  agentId: string | null;
  agentUsername: string | null;
  channelId: string | null;
  previousState: 'queued' | 'offered' | 'connected' | 'held' | 'wrap';
  endReason: string;
  durationMs: number;
}

/** Data of interaction.recorded. */
export interface InteractionRecordedData extends InteractionEventCore {
  recordingId: string;
  agentId: string | null;
  startedAt: string;
  durationMs: number;
  language?: string | null;
  segments: { speaker: 'agent' | 'customer'; startMs: number; endMs: number; text?: string }[];
}

/** Fields every agent-activity event's data carries. */
export interface AgentActivityCore {
  agentId: string;
  agentUsername: string;
  occurredAt: string;
  sequence: number;
}

/** Data of agent-activity.presence-changed. */
export interface PresenceChangedData extends AgentActivityCore {
  presence: PresenceState;
  eligibleForRouting: boolean;
  reason: string | null;
  previous: {
    presence: PresenceState;
    eligibleForRouting: boolean;
    reason?: string | null;
    startedAt: string;
    durationMs: number;
  } | null;
}

/** Data of agent-activity.workload-changed. */
export interface WorkloadChangedData extends AgentActivityCore {
  workload: Workload;
  capacity: Workload;
  previous: { workload: Workload; startedAt: string; durationMs: number } | null;
}

/** The interaction states an agent's time is accounted in. */
export type Segment = 'Ringing' | 'Connected' | 'Wrap' | 'HeldExternalParty';

/** The interaction an agent-activity segment belongs to. */
export interface SegmentInteraction {
  guid: string;
  medium: string;
  mediumManager: string;
  direction: 'Inbound' | 'Outbound' | 'Internal';
  interactionType: InteractionType;
}

/** Data of agent-activity.segment-started. */
export interface SegmentStartedData extends AgentActivityCore {
  segment: Segment;
  startedAt: string;
  interaction: SegmentInteraction;
  channel: { guid: string };
}

/** Data of agent-activity.segment-ended. */
export interface SegmentEndedData extends SegmentStartedData {
  endedAt: string;
  durationMs: number;
  status?: string;
  outcome: 'Answered' | 'Unexpected' | 'Failed' | null;
}

/** Data of analysis.started. */
export interface AnalysisStartedData {
  guid: string;
  recordingId: string;
  occurredAt: string;
}

/** Data of analysis.completed. */
export interface AnalysisCompletedData {
  guid: string;
  result: Omit<AnalysisItemV3, 'transcript'> & { transcript?: string | null };
  occurredAt: string;
}

/** Data of analysis.failed. */
export interface AnalysisFailedData {
  guid: string;
  reason: string | null;
  occurredAt: string;
}

interface DeliveryCore {
  deliveryId: string;
  provider: string;
  interactionId: string;
  notification: 'AssignToAgent' | 'Release';
  attempt: number;
  occurredAt: string;
}

/** Data of notification-delivery.delivered. */
export interface DeliveryDeliveredData extends DeliveryCore {
  status: number;
  latencyMs: number;
}

/** Data of notification-delivery.attempt-failed. */
export interface DeliveryAttemptFailedData extends DeliveryCore {
  status: number | null;
  error: string | null;
  nextAttemptAt: string;
}

/** Data of notification-delivery.dead-lettered. */
export interface DeliveryDeadLetteredData extends DeliveryCore {
  status: number | null;
  error: string | null;
}

/** Data of notification-delivery.endpoint-disabled. */
export interface DeliveryEndpointDisabledData {
  provider: string;
  status: 410;
  pending: number;
  occurredAt: string;
}

/** Account feature flags. */
export interface FeatureFlags {
  agentSummaries: boolean;
  conversationAnalysis: boolean;
  v0Statistics: boolean;
}

/** Data of account.feature-flags-changed. */
export interface FeatureFlagsChangedData {
  flags: FeatureFlags;
  changed: string[];
  occurredAt: string;
}

/** The data type of each event type. */
export interface EventDataMap {
  'provider.registered': ProviderStateData;
  'provider.updated': ProviderStateData;
  'provider.deleted': ProviderDeletedData;
  'interaction.queued': InteractionQueuedData;
  'interaction.applet-executed': InteractionAppletExecutedData;
  'interaction.offered': InteractionOfferedData;
  'interaction.assigned': InteractionAssignedData;
  'interaction.rejected': InteractionRejectedData;
  'interaction.held': InteractionHeldData;
  'interaction.retrieved': InteractionRetrievedData;
  'interaction.transferred': InteractionTransferredData;
  'interaction.wrap-started': InteractionWrapStartedData;
  'interaction.wrap-ended': InteractionWrapEndedData;
  'interaction.released': InteractionReleasedData;
  'interaction.recorded': InteractionRecordedData;
  'agent-activity.presence-changed': PresenceChangedData;
  'agent-activity.workload-changed': WorkloadChangedData;
  'agent-activity.segment-started': SegmentStartedData;
  'agent-activity.segment-ended': SegmentEndedData;
  'analysis.started': AnalysisStartedData;
  'analysis.completed': AnalysisCompletedData;
  'analysis.failed': AnalysisFailedData;
  'notification-delivery.delivered': DeliveryDeliveredData;
  'notification-delivery.attempt-failed': DeliveryAttemptFailedData;
  'notification-delivery.dead-lettered': DeliveryDeadLetteredData;
  'notification-delivery.endpoint-disabled': DeliveryEndpointDisabledData;
  'account.feature-flags-changed': FeatureFlagsChangedData;
}

/** A skill definition (admin). */
export interface Skill {
  name: string;
  description?: string;
}

/** A route: a name clients dispatch to, pointing at an interaction plan (admin). */
export interface Route {
  name: string;
  interactionPlan: string;
  description?: string;
}

/** One applet of an interaction plan. */
export type Applet =
  | { type: 'SetDataSource'; name: string; dataSource: string; fromProperty: string }
  | { type: 'SkillTagger'; name: string; skills: SkillRequirement[] }
  | {
      type: 'Queue';
      name: string;
      virtualQueue?: string;
      timeoutSeconds?: number;
      onTimeout?: { action: 'next' | 'release' } | { action: 'goto'; target: string };
    }
  | { type: 'CallRecording'; name: string; enabled?: boolean }
  | { type: 'Announcement'; name: string; message: string }
  | { type: 'Menu'; name: string; prompt: string; options: { digit: string; goto: string }[] };

/** An interaction plan: applets run in order (admin). */
export interface InteractionPlan {
  name: string;
  reportingGroup?: string;
  applets: Applet[];
}

/** Body creating or replacing an agent (admin). */
export interface AgentWrite {
  username: string;
  displayName?: string;
  skills?: { name: string; level?: number }[];
  capacity: Workload;
}

/** An agent as the admin API shows it. */
export interface AgentView extends Required<Pick<AgentWrite, 'username' | 'capacity'>> {
  agentId: string;
  displayName?: string;
  skills: { name: string; level?: number }[];
  presence: PresenceState;
  createdAt: string;
}

/** One routing decision of an interaction's trace. */
export interface RoutingDecision {
  at: string;
  rule: string;
  interactionType?: InteractionType;
  candidates: {
    agentId: string;
    username?: string;
    excluded: string | null;
    idleMs?: number;
    optionalSkillsMatched?: number;
  }[];
  winner: string | null;
}

/** The routing trace of an interaction (admin). */
export interface RoutingTrace {
  interactionId: string;
  decisions: RoutingDecision[];
}

/** States of a notification delivery. */
export type DeliveryState = 'pending' | 'delivered' | 'failed' | 'dead';

/** One notification delivery with its attempts (admin). */
export interface Delivery {
  deliveryId: string;
  provider: string;
  interactionId: string;
  notification: 'AssignToAgent' | 'Release';
  state: DeliveryState;
  nextAttemptAt?: string | null;
  attempts: { at: string; status: number | null; latencyMs: number; error: string | null }[];
  createdAt: string;
}

/** Body replaying a provider's failed and dead deliveries since a time (admin). */
export interface ReplayRequest {
  since: string;
  states?: ('failed' | 'dead')[];
}

/** The circuit-breaker state of one provider endpoint (admin). */
export interface BreakerView {
  provider: string;
  state: 'closed' | 'open' | 'halfOpen' | 'disabled';
  failures: number;
  openedAt?: string | null;
}

/** An account as the admin API shows it. */
export interface AccountView {
  accountId: string;
  name: string;
  featureFlags: FeatureFlags;
  createdAt: string;
}

/** Body creating an API client (admin). */
export interface ApiClientCreate {
  name: string;
  scopes: (
    | 'interactions:write'
    | 'stats'
    | 'interaction-content:read'
    | 'interaction-content:write'
    | 'admin'
    | 'agent'
  )[];
}

/** An API client as the admin API shows it (the secret only at creation). */
export interface ApiClientView extends ApiClientCreate {
  clientId: string;
  clientSecret?: string;
  createdAt: string;
}

/** Body changing an agent's presence (agent desktop). */
export interface PresenceUpdate {
  presence: PresenceState;
  reason?: string;
}

/** An agent's presence (agent desktop). */
export interface PresenceView {
  agentId: string;
  presence: PresenceState;
  reason?: string | null;
  eligibleForRouting: boolean;
  since: string;
}

/** An offer ringing at an agent (agent desktop). */
export interface Offer {
  offerId: string;
  interactionId: string;
  interactionType: InteractionType;
  route?: string | null;
  provider?: string | null;
  offeredAt: string;
  expiresAt: string;
  linkeddata: LinkedDataItem[];
}

/** An interaction assigned to an agent (agent desktop). */
export interface AgentInteraction {
  interactionId: string;
  externalId?: string | null;
  provider?: string | null;
  state: 'connected' | 'held' | 'wrap';
  interactionType: InteractionType;
  since: string;
  permissions: EffectivePermissions;
  linkeddata?: LinkedDataItem[];
}

/** Body of a transfer: exactly one of agent or route (agent desktop). */
export type TransferRequest = { agent: string } | { route: string };

/** Form body of POST /Auth/connect/token. */
export interface TokenRequest {
  grant_type: 'client_credentials';
  scope: ApiClientCreate['scopes'][number];
  client_id?: string;
  client_secret?: string;
}
