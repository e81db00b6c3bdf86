// TypeScript types of the payloads. Every shape comes from the schemas: types.generated.ts is generated from them
// (src/codegen/types.codegen.ts) and test/types.test.ts fails when it is stale. This file re-exports those types
// and derives the few a schema cannot name by itself: queries after validation (defaults applied), the generic
// envelopes, and shared parts of event data.
import type {
  AgentActivitiesQueryInput,
  AgentSummariesQueryInput,
  AnalysisListQueryInput,
  AnalysisQueryInput,
  CloudEventEnvelope,
  InteractionHeldData,
  PageMeta,
  PresenceChangedData,
  ProviderUpdatedData,
  SegmentStartedData,
  StatsInteractionsQueryInput,
} from './types.generated';

export type {
  AccountView,
  AgentActionsPermitted,
  AgentActivity,
  AgentInteraction,
  AgentSummariesResponse,
  AgentSummary,
  AgentView,
  AgentWrite,
  AnalysisCompletedData,
  AnalysisFailedData,
  AnalysisItemV1,
  AnalysisItemV2,
  AnalysisItemV3,
  AnalysisStartedData,
  ApiClientCreate,
  ApiClientView,
  Applet,
  BreakerView,
  CallTimeBreakDown,
  Channel,
  ChannelEvent,
  Delivery,
  DeliveryAttemptFailedData,
  DeliveryDeadLetteredData,
  DeliveryDeliveredData,
  DeliveryEndpointDisabledData,
  DeliveryState,
  EffectivePermissions,
  EventDataMap,
  FeatureFlags,
  FeatureFlagsChangedData,
  Include,
  InteractionAppletExecutedData,
  InteractionAssignedData,
  InteractionHeldData,
  InteractionOfferedData,
  InteractionPlan,
  InteractionQueuedData,
  InteractionRecord,
  InteractionRecordedData,
  InteractionRejectedData,
  InteractionReleasedData,
  InteractionRequest,
  InteractionRetrievedData,
  InteractionTransferredData,
  InteractionType,
  InteractionWrapEndedData,
  InteractionWrapStartedData,
  Invocation,
  InvokeResponse,
  InvokeResult,
  LinkedDataItem,
  Offer,
  PageMeta,
  PersonalQueue,
  PresenceChangedData,
  PresenceState,
  PresenceUpdate,
  PresenceView,
  ProviderDeletedData,
  ProviderHeaders,
  ProviderNotification,
  ProviderRegisteredData,
  ProviderSettings,
  ProviderUpdatedData,
  ProviderView,
  ReplayRequest,
  Route,
  RoutingData,
  RoutingDecision,
  RoutingTrace,
  SealedSecrets,
  SegmentEndedData,
  SegmentStartedData,
  Skill,
  SkillRequirement,
  TokenRequest,
  TokenResponse,
  TransferRequest,
  V0AgentState,
  V0InboundCall,
  V0OutboundCall,
  V0StatisticsQuery,
  Workload,
  WorkloadChangedData,
} from './types.generated';

/** A validated query: the keys with a schema default are always present (the validator applies defaults). */
type Validated<Q, Defaulted extends keyof Q> = Omit<Q, Defaulted> & Required<Pick<Q, Defaulted>>;

/** Paging parameters after validation (defaults applied). */
export type PagingQuery = Validated<Pick<AgentActivitiesQueryInput, 'page' | 'limit'>, 'page' | 'limit'>;

/** Query of GET /stats/wfm/agent-summaries after validation. */
export type AgentSummariesQuery = Validated<AgentSummariesQueryInput, 'page' | 'limit' | 'cadence'>;

/** Query of GET /stats/agent-activities after validation. */
export type AgentActivitiesQuery = Validated<AgentActivitiesQueryInput, 'page' | 'limit' | 'include'>;

/** Query of GET /stats/interactions after validation. */
export type StatsInteractionsQuery = Validated<StatsInteractionsQueryInput, 'page' | 'limit' | 'include'>;

/** Query of the conversation analyzer after validation. */
export type AnalysisQuery = Validated<AnalysisQueryInput, 'transcript'>;

/** Query of the conversation analyzer list endpoint after validation. */
export type AnalysisListQuery = Validated<AnalysisListQueryInput, 'transcript'>;

/** A listing envelope (the schemas' `pageOf`) around items of type T. */
export interface Page<T> {
  meta: PageMeta;
  items: T[];
  upTo: string;
}

/** A CloudEvents 1.0 structured-mode event of this suite, with its data and type made precise. */
export type CloudEvent<T = unknown, Type extends string = string> = Omit<CloudEventEnvelope, 'type' | 'data'> & {
  type: Type;
  data: T;
};

/** Fields every interaction event's data carries. */
export type InteractionEventCore = Omit<InteractionHeldData, keyof AgentRef>;

/** Agent fields of agent-bound interaction events. */
export type AgentRef = Pick<InteractionHeldData, 'agentId' | 'agentUsername' | 'channelId'>;

/** Fields every agent-activity event's data carries. */
export type AgentActivityCore = Pick<PresenceChangedData, 'agentId' | 'agentUsername' | 'occurredAt' | 'sequence'>;

/** The interaction states an agent's time is accounted in. */
export type Segment = SegmentStartedData['segment'];

/** The interaction an agent-activity segment belongs to. */
export type SegmentInteraction = SegmentStartedData['interaction'];

/** Data of provider.registered and provider.updated (the full state; only updated says why, in `reason`). */
export type ProviderStateData = ProviderUpdatedData;
