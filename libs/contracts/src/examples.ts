import type {
  AgentActivity,
  AgentInteraction,
  AgentSummariesResponse,
  AgentWrite,
  AnalysisItemV1,
  AnalysisItemV2,
  AnalysisItemV3,
  Delivery,
  EventDataMap,
  InteractionPlan,
  InteractionRecord,
  Invocation,
  InvokeResponse,
  Offer,
  Page,
  ProviderNotification,
  ProviderSettings,
  ProviderView,
  RoutingTrace,
  TokenResponse,
  V0AgentState,
  V0InboundCall,
  V0OutboundCall,
} from './types';

// Example payloads in the shapes the spec gives; the documents embed them and the tests validate each one.

const callGuid = '3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e34';
const conversationGuid = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const agentId = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const channelGuid = 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e';
const notificationId = 'c3d4e5f6-a7b8-4c9d-8e0f-2a3b4c5d6e7f';
const offerId = 'd4e5f6a7-b8c9-4d0e-9f1a-3b4c5d6e7f80';

/** Invoke: a dispatch with every linkeddata type, skills with and without expiry, and a personal queue. */
export const invokeDispatchExample: Invocation = {
  provider: 'AcmeCRM',
  requests: [
    {
      action: 'dispatch',
      requestId: 'req-0001',
      externalId: 'case-1001',
      route: 'Support',
      linkeddata: [
        { type: 'clid', value: '+441234567890' },
        { type: 'name', value: 'Case 1001: printer on fire' },
        { type: 'mediatype', value: 'Email' },
        { type: 'url', label: 'Open case', value: 'https://crm.example.com/cases/1001' },
        { type: 'interactionproperty', key: 'Priority', value: 'High' },
        { type: 'interactionproperty', key: 'Region', value: 'EMEA' },
      ],
      routingdata: {
        interactiontype: 'nonlive',
        skills: [{ name: 'English' }, { name: 'Printers', expiryafter: 600 }, { name: 'VIP', expiryafter: 0 }],
        personalqueue: { agent: 'jane.doe', loggedintimeout: 300, loggedouttimeout: 60 },
      },
    },
  ],
};

/** Invoke: the spec's lower-case spellings, minimal dispatch without externalId (it cannot be released later). */
export const invokeLowerCaseExample: Invocation = {
  requests: [
    { requestid: 'req-0002', externalid: 'case-1002', route: 'Support' },
    { route: 'Sales', linkeddata: [{ type: 'url', label: 'No link yet' }] },
  ],
};

/** Invoke: a release by externalId. */
export const invokeReleaseExample: Invocation = {
  provider: 'AcmeCRM',
  requests: [{ action: 'release', requestId: 'req-0003', externalId: 'case-1001' }],
};

/** Invoke: the 202 response, one result per request object. */
export const invokeResponseExample: InvokeResponse = {
  results: [
    {
      index: 0,
      action: 'dispatch',
      requestId: 'req-0001',
      externalId: 'case-1001',
      interactionId: callGuid,
      outcome: 'queued',
      duplicate: false,
    },
  ],
};

/** Register: headers as a map, with an Authorization header of the form `<type> <credentials>`. */
export const registerExample: ProviderSettings = {
  provider: 'AcmeCRM',
  endpoint: 'https://crm.example.com/cc/notifications',
  headers: { Authorization: 'Bearer <BEARER_TOKEN>', 'X-Tenant': 'acme' },
  agentactionspermitted: { release: 1, hold: 1, transferToAgent: 0, transferToRoute: 1 },
};

/** Register: headers as an array of key-value pairs. */
export const registerArrayHeadersExample: ProviderSettings = {
  provider: 'LegacyDesk',
  endpoint: 'https://desk.example.org/hooks/cc',
  headers: [{ key: 'Authorization', value: 'Basic <BASIC_CREDENTIALS>' }],
  agentactionspermitted: { release: 1 },
};

/** Register: a provider without endpoint (it receives no notifications). */
export const registerNoEndpointExample: ProviderSettings = {
  provider: 'Silent',
  agentactionspermitted: { release: 0, hold: 1 },
};

/** Register: the response (header values redacted; the signing secret only on creation). */
export const registerResponseExample: ProviderView = {
  provider: 'AcmeCRM',
  endpoint: 'https://crm.example.com/cc/notifications',
  headers: { Authorization: '<redacted>', 'X-Tenant': '<redacted>' },
  agentactionspermitted: { release: 1, hold: 1, transferToAgent: 0, transferToRoute: 1 },
  permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: true },
  signingSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  createdAt: '2024-05-01T08:00:00.000Z',
  updatedAt: '2024-05-01T08:00:00.000Z',
};

/** Provider notification body: AssignToAgent. */
export const assignToAgentExample: ProviderNotification[] = [
  {
    notification: 'AssignToAgent',
    objectid: callGuid,
    notificationid: notificationId,
    externalId: 'case-1001',
    params: {
      AccountName: 'Acme Ltd',
      AccountId: 'acme',
      Agent: 'jane.doe',
      AgentId: agentId,
      Provider: 'AcmeCRM',
      Route: 'Support',
      InteractionType: 'nonlive',
      RequestId: 'req-0001',
      OccurredAt: '2024-05-01T08:01:02.345Z',
    },
  },
];

/** Provider notification body: Release. */
export const releaseNotificationExample: ProviderNotification[] = [
  {
    notification: 'Release',
    objectid: callGuid,
    notificationid: 'e5f6a7b8-c9d0-4e1f-8a2b-4c5d6e7f8091',
    externalId: 'case-1001',
    params: {
      AccountName: 'Acme Ltd',
      AccountId: 'acme',
      Agent: 'jane.doe',
      AgentId: agentId,
      Provider: 'AcmeCRM',
      Route: 'Support',
      InteractionType: 'nonlive',
      OccurredAt: '2024-05-01T08:09:10.000Z',
      ReleasedBy: 'agent',
    },
  },
];

/** GET /stats/wfm/agent-summaries: the spec's response shape. */
export const agentSummariesExample: AgentSummariesResponse = {
  meta: { page: 1, count: 1, pageCount: 1, totalCount: 1 },
  items: [
    {
      agentId,
      timestamp: '2024-05-01T08:15:00.000Z',
      revision: 4,
      interactions: {
        handleTime: [
          { type: 'Ringing', totalTime: 12, inbound: 12, outbound: 0, internal: 0 },
          { type: 'Connected', totalTime: 540, inbound: 420, outbound: 120, internal: 0 },
          { type: 'Wrap', totalTime: 60, inbound: 60, outbound: 0, internal: 0 },
          { type: 'HeldExternalParty', totalTime: 30, inbound: 30, outbound: 0, internal: 0 },
        ],
        offered: [
          { type: 'Answered', count: 3, inbound: 3, outbound: 0, internal: 0 },
          { type: 'Unexpected', count: 1, inbound: 1, outbound: 0, internal: 0 },
          { type: 'Failed', count: 0, inbound: 0, outbound: 0, internal: 0 },
        ],
        actions: [{ type: 'HoldExternalParty', count: 1, inbound: 1, outbound: 0, internal: 0 }],
      },
      presence: {
        states: [
          { type: 'Ready', totalTime: 780, count: 2 },
          { type: 'Away', totalTime: 120, count: 1 },
        ],
      },
    },
  ],
  upTo: '2024-05-01T08:30:00.000Z',
  cadence: 15,
};

/** GET /stats/agent-activities: one item of each type. */
export const agentActivitiesExample: Page<AgentActivity> = {
  meta: { page: 1, count: 3, pageCount: 1, totalCount: 3 },
  items: [
    {
      agentId,
      type: 'Presence',
      category: 'Ready',
      name: 'Ready',
      eligibleForRouting: true,
      start: '2024-05-01T08:00:00.000Z',
      status: null,
      duration: 900000,
      reason: null,
      interaction: null,
      channel: null,
      workload: null,
    },
    {
      agentId,
      type: 'Workload',
      category: null,
      name: null,
      eligibleForRouting: null,
      start: '2024-05-01T08:01:00.000Z',
      status: null,
      duration: 300000,
      reason: null,
      interaction: null,
      channel: null,
      workload: { calls: 1, semiLive: 0, nonLive: 0 },
    },
    {
      agentId,
      type: 'Interaction',
      category: 'Connected',
      name: null,
      eligibleForRouting: null,
      start: '2024-05-01T08:01:05.123Z',
      status: 'Completed',
      duration: 294877,
      reason: null,
      interaction: { guid: callGuid, medium: 'Phone', mediumManager: 'CC', direction: 'Inbound' },
      channel: { guid: channelGuid },
      workload: null,
    },
  ],
  upTo: '2024-05-01T09:00:00.000Z',
};

/** GET /stats/interactions: one record with every event type the spec shows. */
export const statsInteractionsExample: Page<InteractionRecord> = {
  meta: { page: 1, count: 1, pageCount: 1, totalCount: 1 },
  items: [
    {
      status: 'Completed',
      medium: 'Phone',
      mediumManager: 'CC',
      start: '2024-05-01T08:00:00.000Z',
      guid: callGuid,
      conversationGuid,
      duration: 305000,
      direction: 'Inbound',
      serviceName: 'Support Line',
      connectTo: '+441234000000',
      connectFrom: '+441234567890',
      interactionPlanMapping: { addressName: 'Support', mappingName: 'Default', interactionPlanName: 'Support Plan' },
      channels: [
        {
          guid: 'f6a7b8c9-d0e1-4f2a-9b3c-5d6e7f809102',
          offset: 0,
          duration: 305000,
          endReason: 'Released',
          party: { id: null, role: 'External', touchpoint: '+441234567890' },
          events: [
            {
              type: 'InteractionPlan',
              offset: 0,
              name: 'Support Plan',
              duration: 5000,
              properties: { reportingGroup: 'Support' },
            },
            {
              type: 'Applet',
              offset: 100,
              name: 'Greeting',
              duration: 3000,
              properties: { appletType: 'Announcement' },
            },
            {
              type: 'Applet',
              offset: 3100,
              name: 'Set priority',
              duration: 10,
              properties: { appletType: 'SetDataSource' },
            },
            {
              type: 'DataSourceValueAcquired',
              offset: 3110,
              name: 'Priority',
              duration: 0,
              properties: { value: 'High' },
            },
            { type: 'CallRecording', offset: 3200, name: null, duration: 300000, properties: null },
            {
              type: 'Queue',
              offset: 3300,
              name: 'Support queue',
              duration: 1700,
              properties: {
                interactionPlan: 'Support Plan',
                virtualQueues: ['Support'],
                presentedSkills: ['English', 'Printers'],
                result: 'Delivered',
              },
            },
          ],
        },
        {
          guid: channelGuid,
          offset: 5000,
          duration: 300000,
          endReason: 'Released',
          party: { id: agentId, role: 'Agent', touchpoint: null },
          events: [
            { type: 'Ringing', offset: 5000, name: null, duration: 123, properties: null },
            { type: 'Connected', offset: 5123, name: null, duration: 240000, properties: null },
            { type: 'Wrap', offset: 245123, name: null, duration: 59877, properties: null },
          ],
        },
      ],
    },
  ],
  upTo: '2024-05-01T09:00:00.000Z',
};

const breakDown = { agent: 120.5, customer: 150, silence: 20, crossTalk: 4.5 };

/** Conversation analyzer item, version 1 (categories with subcategories). */
export const analysisV1Example: AnalysisItemV1 = {
  categories: [{ category: 'Billing', subcategories: ['Refund', 'Invoice'] }],
  guid: callGuid,
  status: 'processed',
  confidence: 'High',
  callTimeBreakDown: breakDown,
  transcript: null,
};

/** Conversation analyzer item, version 2 (nested categories of {name, matches}). */
export const analysisV2Example: AnalysisItemV2 = {
  categories: [{ category: 'Billing', categories: [{ name: 'Refund', matches: 'I would like a refund' }] }],
  guid: callGuid,
  status: 'processed',
  confidence: 'Medium',
  callTimeBreakDown: breakDown,
  transcript: 'Agent: Hello, how can I help? Customer: I would like a refund.',
};

/** Conversation analyzer item, version 3 (version 2 plus language). */
export const analysisV3Example: AnalysisItemV3 = { ...analysisV2Example, language: 'en-GB', confidence: 'Low' };

/** v0 agentstates response. */
export const v0AgentStatesExample: { count: number; stats: V0AgentState[] } = {
  count: 2,
  stats: [
    { agentId: '1001', groupId: '12', stateChangedAt: '2024-05-01T08:00:00Z', state: 'Ready', duration: '00:05:00' },
    {
      agentId: '1002',
      groupId: '12',
      stateChangedAt: '2024-05-01T08:02:00Z',
      state: 'Busy Inbound',
      duration: '00:01:05',
      callGuid,
    },
  ],
};

/** v0 outboundcalls response. */
export const v0OutboundCallsExample: { count: number; calls: V0OutboundCall[] } = {
  count: 1,
  calls: [
    {
      callGuid,
      callStartedAt: '2024-05-01T08:00:00Z',
      state: 'Completed',
      agentId: '1001',
      destination: '+441234567890',
      ringDuration: '00:00:07',
      duration: '00:03:12',
    },
  ],
};

/** v0 inboundcalls response. */
export const v0InboundCallsExample: { count: number; calls: V0InboundCall[] } = {
  count: 2,
  calls: [
    {
      connectedTo: '+441234000000',
      serviceName: 'Support Line',
      callGuid,
      origin: '+441234567890',
      stateChangedAt: '2024-05-01T08:00:00Z',
      sequence: 1,
      appletName: null,
      event: 'Start',
      state: 'Ringing',
      duration: '00:00:00',
    },
    {
      connectedTo: '+441234000000',
      serviceName: 'Support Line',
      callGuid,
      origin: '+441234567890',
      stateChangedAt: '2024-05-01T08:00:05Z',
      sequence: 2,
      appletName: 'Support queue',
      event: 'ACDDelivery',
      state: 'Connected',
      ringDuration: '00:00:02',
      duration: '00:04:00',
      additionalParameters: { agentId: '1001' },
    },
  ],
};

/** POST /Auth/connect/token response. */
export const tokenResponseExample: TokenResponse = {
  access_token: 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJl',
  token_type: 'Bearer',
  expires_in: 7200,
  scope: 'interactions:write',
};

const interactionCore = {
  interactionId: callGuid,
  conversationId: conversationGuid,
  externalId: 'case-1001',
  provider: 'AcmeCRM',
  interactionType: 'live' as const,
  medium: 'Phone',
  mediumManager: 'CC',
  direction: 'Inbound' as const,
};
const agentRef = { agentId, agentUsername: 'jane.doe', channelId: channelGuid };
const sealed = {
  kid: 'delivery-2024-05',
  alg: 'A256GCM' as const,
  iv: 'AAECAwQFBgcICQoL',
  ciphertext: 'c2VhbGVkLWhlYWRlcnMtYW5kLXNlY3JldHM',
  tag: 'AAECAwQFBgcICQoLDA0ODw',
};
const providerState = {
  provider: 'AcmeCRM',
  endpoint: 'https://crm.example.com/cc/notifications',
  headerNames: ['Authorization', 'X-Tenant'],
  agentactionspermitted: { release: 1 as const, hold: 1 as const },
  permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: false },
  sealed,
};
const segmentInteraction = {
  guid: callGuid,
  medium: 'Phone',
  mediumManager: 'CC',
  direction: 'Inbound' as const,
  interactionType: 'live' as const,
};
const analysisResult = { ...analysisV3Example, transcript: null };

/** One example of each event type's data. */
export const eventDataExamples: { [K in keyof EventDataMap]: EventDataMap[K] } = {
  'provider.registered': { ...providerState, version: 1, occurredAt: '2024-05-01T08:00:00.000Z' },
  'provider.updated': {
    ...providerState,
    version: 2,
    reason: 'signing-secret-rotated',
    occurredAt: '2024-05-02T08:00:00.000Z',
  },
  'provider.deleted': { provider: 'AcmeCRM', version: 3, occurredAt: '2024-05-03T08:00:00.000Z' },
  'interaction.queued': {
    ...interactionCore,
    occurredAt: '2024-05-01T08:00:00.000Z',
    sequence: 1,
    requestId: 'req-0001',
    route: 'Support',
    interactionPlan: 'Support Plan',
    reportingGroup: 'Support',
    serviceName: 'Support Line',
    connectTo: '+441234000000',
    connectFrom: '+441234567890',
    interactionPlanMapping: { addressName: 'Support', mappingName: 'Default', interactionPlanName: 'Support Plan' },
    linkeddata: [{ type: 'clid', value: '+441234567890' }],
    skills: [
      { name: 'English', expiryafter: null },
      { name: 'Printers', expiryafter: 600 },
    ],
    personalQueue: null,
  },
  'interaction.applet-executed': {
    ...interactionCore,
    occurredAt: '2024-05-01T08:00:03.300Z',
    sequence: 2,
    interactionPlan: 'Support Plan',
    reportingGroup: 'Support',
    applet: { name: 'Support queue', type: 'Queue' },
    startedAt: '2024-05-01T08:00:03.300Z',
    durationMs: 1700,
    dataSource: null,
    queue: { virtualQueues: ['Support'], presentedSkills: ['English', 'Printers'], result: 'Delivered' },
  },
  'interaction.offered': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:00:05.000Z',
    sequence: 3,
    offerId,
    expiresAt: '2024-05-01T08:00:25.000Z',
    rule: 'longest-idle',
    attempt: 1,
  },
  'interaction.assigned': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:00:05.123Z',
    sequence: 4,
    route: 'Support',
    requestId: 'req-0001',
    offerId,
    ringingMs: 123,
  },
  'interaction.rejected': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:00:25.000Z',
    sequence: 4,
    offerId,
    ringingMs: 20000,
    reason: 'timed-out',
    outcome: 'Unexpected',
  },
  'interaction.held': { ...interactionCore, ...agentRef, occurredAt: '2024-05-01T08:01:00.000Z', sequence: 5 },
  'interaction.retrieved': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:01:30.000Z',
    sequence: 6,
    heldMs: 30000,
  },
  'interaction.transferred': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:02:00.000Z',
    sequence: 7,
    target: { kind: 'route', route: 'Escalations' },
  },
  'interaction.wrap-started': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:04:05.123Z',
    sequence: 7,
    connectedMs: 240000,
  },
  'interaction.wrap-ended': {
    ...interactionCore,
    ...agentRef,
    occurredAt: '2024-05-01T08:05:05.000Z',
    sequence: 8,
    wrapMs: 59877,
  },
  'interaction.released': {
    ...interactionCore,
    occurredAt: '2024-05-01T08:05:05.000Z',
    sequence: 9,
    route: 'Support',
    requestId: 'req-0001',
    releasedBy: 'agent',
    agentId,
    agentUsername: 'jane.doe',
    channelId: channelGuid,
    previousState: 'wrap',
    endReason: 'Released',
    durationMs: 305000,
  },
  'interaction.recorded': {
    ...interactionCore,
    occurredAt: '2024-05-01T08:04:06.000Z',
    sequence: 10,
    recordingId: 'a7b8c9d0-e1f2-4a3b-8c4d-6e7f80910213',
    agentId,
    startedAt: '2024-05-01T08:00:03.200Z',
    durationMs: 300000,
    language: 'en-GB',
    segments: [
      { speaker: 'agent', startMs: 0, endMs: 4000, text: 'Hello, how can I help?' },
      { speaker: 'customer', startMs: 4500, endMs: 9000, text: 'I would like a refund.' },
    ],
  },
  'agent-activity.presence-changed': {
    agentId,
    agentUsername: 'jane.doe',
    occurredAt: '2024-05-01T08:15:00.000Z',
    sequence: 12,
    presence: 'Away',
    eligibleForRouting: false,
    reason: 'Break',
    previous: {
      presence: 'Ready',
      eligibleForRouting: true,
      startedAt: '2024-05-01T08:00:00.000Z',
      durationMs: 900000,
    },
  },
  'agent-activity.workload-changed': {
    agentId,
    agentUsername: 'jane.doe',
    occurredAt: '2024-05-01T08:00:05.123Z',
    sequence: 13,
    workload: { calls: 1, semiLive: 0, nonLive: 0 },
    capacity: { calls: 1, semiLive: 2, nonLive: 5 },
    previous: {
      workload: { calls: 0, semiLive: 0, nonLive: 0 },
      startedAt: '2024-05-01T07:58:00.000Z',
      durationMs: 125123,
    },
  },
  'agent-activity.segment-started': {
    agentId,
    agentUsername: 'jane.doe',
    occurredAt: '2024-05-01T08:00:05.000Z',
    sequence: 14,
    segment: 'Ringing',
    startedAt: '2024-05-01T08:00:05.000Z',
    interaction: segmentInteraction,
    channel: { guid: channelGuid },
  },
  'agent-activity.segment-ended': {
    agentId,
    agentUsername: 'jane.doe',
    occurredAt: '2024-05-01T08:00:05.123Z',
    sequence: 15,
    segment: 'Ringing',
    startedAt: '2024-05-01T08:00:05.000Z',
    endedAt: '2024-05-01T08:00:05.123Z',
    durationMs: 123,
    status: 'Completed',
    interaction: segmentInteraction,
    channel: { guid: channelGuid },
    outcome: 'Answered',
  },
  'analysis.started': {
    guid: callGuid,
    recordingId: 'a7b8c9d0-e1f2-4a3b-8c4d-6e7f80910213',
    occurredAt: '2024-05-01T08:05:00.000Z',
  },
  'analysis.completed': { guid: callGuid, result: analysisResult, occurredAt: '2024-05-01T08:06:00.000Z' },
  'analysis.failed': { guid: callGuid, reason: 'Recording unreadable', occurredAt: '2024-05-01T08:06:00.000Z' },
  'notification-delivery.delivered': {
    deliveryId: notificationId,
    provider: 'AcmeCRM',
    interactionId: callGuid,
    notification: 'AssignToAgent',
    attempt: 1,
    occurredAt: '2024-05-01T08:00:05.400Z',
    status: 204,
    latencyMs: 180,
  },
  'notification-delivery.attempt-failed': {
    deliveryId: notificationId,
    provider: 'AcmeCRM',
    interactionId: callGuid,
    notification: 'AssignToAgent',
    attempt: 1,
    occurredAt: '2024-05-01T08:00:20.000Z',
    status: null,
    error: 'timeout after 15000 ms',
    nextAttemptAt: '2024-05-01T08:00:25.000Z',
  },
  'notification-delivery.dead-lettered': {
    deliveryId: notificationId,
    provider: 'AcmeCRM',
    interactionId: callGuid,
    notification: 'AssignToAgent',
    attempt: 8,
    occurredAt: '2024-05-02T12:00:00.000Z',
    status: 503,
    error: 'Service Unavailable',
  },
  'notification-delivery.endpoint-disabled': {
    provider: 'AcmeCRM',
    status: 410,
    pending: 3,
    occurredAt: '2024-05-02T12:00:00.000Z',
  },
  'account.feature-flags-changed': {
    flags: { agentSummaries: true, conversationAnalysis: true, v0Statistics: false },
    changed: ['agentSummaries'],
    occurredAt: '2024-05-01T07:00:00.000Z',
  },
};

/** Admin: an interaction plan with a data source, skills, a queue with a timeout branch and an announcement. */
export const interactionPlanExample: InteractionPlan = {
  name: 'Support Plan',
  reportingGroup: 'Support',
  applets: [
    { type: 'SetDataSource', name: 'Set priority', dataSource: 'Priority', fromProperty: 'Priority' },
    { type: 'SkillTagger', name: 'Tag skills', skills: [{ name: 'English' }, { name: 'Printers', expiryafter: 600 }] },
    { type: 'Queue', name: 'Support queue', timeoutSeconds: 600, onTimeout: { action: 'goto', target: 'Sorry' } },
    { type: 'Announcement', name: 'Sorry', message: 'All agents are busy.' },
  ],
};

/** Admin: an agent. */
export const agentWriteExample: AgentWrite = {
  username: 'jane.doe',
  displayName: 'Jane Doe',
  skills: [{ name: 'English' }, { name: 'Printers', level: 8 }],
  capacity: { calls: 1, semiLive: 2, nonLive: 5 },
};

/** Admin: the routing trace of an interaction. */
export const routingTraceExample: RoutingTrace = {
  interactionId: callGuid,
  decisions: [
    {
      at: '2024-05-01T08:00:05.000Z',
      rule: 'longest-idle',
      interactionType: 'live',
      candidates: [
        { agentId, username: 'jane.doe', excluded: null, idleMs: 120000, optionalSkillsMatched: 1 },
        { agentId: 'f1e2d3c4-b5a6-4978-8d6c-5b4a39281706', username: 'joe', excluded: 'presence Away' },
      ],
      winner: agentId,
    },
  ],
};

/** Admin: a delivery with a failed then a successful attempt. */
export const deliveryExample: Delivery = {
  deliveryId: notificationId,
  provider: 'AcmeCRM',
  interactionId: callGuid,
  notification: 'AssignToAgent',
  state: 'delivered',
  nextAttemptAt: null,
  attempts: [
    { at: '2024-05-01T08:00:05.200Z', status: 503, latencyMs: 40, error: 'Service Unavailable' },
    { at: '2024-05-01T08:00:10.200Z', status: 204, latencyMs: 180, error: null },
  ],
  createdAt: '2024-05-01T08:00:05.123Z',
};

/** Agent desktop: an offer ringing. */
export const offerExample: Offer = {
  offerId,
  interactionId: callGuid,
  interactionType: 'nonlive',
  route: 'Support',
  provider: 'AcmeCRM',
  offeredAt: '2024-05-01T08:00:05.000Z',
  expiresAt: '2024-05-01T08:00:25.000Z',
  linkeddata: [{ type: 'name', value: 'Case 1001: printer on fire' }],
};

/** Agent desktop: an accepted interaction with the provider's permissions. */
export const agentInteractionExample: AgentInteraction = {
  interactionId: callGuid,
  externalId: 'case-1001',
  provider: 'AcmeCRM',
  state: 'connected',
  interactionType: 'nonlive',
  since: '2024-05-01T08:00:05.123Z',
  permissions: { release: true, hold: true, retrieve: true, transferToAgent: false, transferToRoute: true },
};
