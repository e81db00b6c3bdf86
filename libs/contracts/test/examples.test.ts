import {
  agentActivitiesExample,
  agentActivitiesResponse,
  agentInteraction,
  agentInteractionExample,
  agentSummariesExample,
  agentSummariesResponse,
  agentWrite,
  agentWriteExample,
  analysisItemV1,
  analysisItemV2,
  analysisItemV3,
  analysisV1Example,
  analysisV2Example,
  analysisV3Example,
  assignToAgentExample,
  delivery,
  deliveryExample,
  interactionPlan,
  interactionPlanExample,
  invocation,
  invokeDispatchExample,
  invokeLowerCaseExample,
  invokeReleaseExample,
  invokeResponse,
  invokeResponseExample,
  type JsonSchema,
  offer,
  offerExample,
  providerNotificationBody,
  providerSettings,
  providerView,
  registerArrayHeadersExample,
  registerExample,
  registerNoEndpointExample,
  registerResponseExample,
  releaseNotificationExample,
  routingTrace,
  routingTraceExample,
  statsInteractionsExample,
  statsInteractionsResponse,
  tokenResponse,
  tokenResponseExample,
  v0AgentStatesExample,
  v0AgentStatesResponse,
  v0InboundCallsExample,
  v0InboundCallsResponse,
  v0OutboundCallsExample,
  v0OutboundCallsResponse,
} from '../src/index';
import { bodyErrors } from './helpers/expect-violation';

// Every example shape of the spec, typed with the TS payload types, must pass its schema: the types and the
// schemas cannot drift apart without this test failing (and tsc failing on the typed side).
const cases: [string, JsonSchema, unknown][] = [
  ['Invoke dispatch (all linkeddata types, skills, personal queue)', invocation, invokeDispatchExample],
  ['Invoke with lower-case requestid/externalid', invocation, invokeLowerCaseExample],
  ['Invoke release', invocation, invokeReleaseExample],
  ['Invoke response', invokeResponse, invokeResponseExample],
  ['Register with headers as a map', providerSettings, registerExample],
  ['Register with headers as key-value pairs', providerSettings, registerArrayHeadersExample],
  ['Register without endpoint', providerSettings, registerNoEndpointExample],
  ['Register response', providerView, registerResponseExample],
  ['AssignToAgent notification', providerNotificationBody, assignToAgentExample],
  ['Release notification', providerNotificationBody, releaseNotificationExample],
  ['agent summaries response', agentSummariesResponse, agentSummariesExample],
  ['statistics agent activities', agentActivitiesResponse, agentActivitiesExample],
  ['statistics interactions with channels and events', statsInteractionsResponse, statsInteractionsExample],
  ['analysis item v1', analysisItemV1, analysisV1Example],
  ['analysis item v2', analysisItemV2, analysisV2Example],
  ['analysis item v3', analysisItemV3, analysisV3Example],
  ['v0 agentstates', v0AgentStatesResponse, v0AgentStatesExample],
  ['v0 outboundcalls', v0OutboundCallsResponse, v0OutboundCallsExample],
  ['v0 inboundcalls', v0InboundCallsResponse, v0InboundCallsExample],
  ['token response', tokenResponse, tokenResponseExample],
  ['admin interaction plan', interactionPlan, interactionPlanExample],
  ['admin agent', agentWrite, agentWriteExample],
  ['admin routing trace', routingTrace, routingTraceExample],
  ['admin delivery', delivery, deliveryExample],
  ['agent-desktop offer', offer, offerExample],
  ['agent-desktop interaction', agentInteraction, agentInteractionExample],
];

describe('spec example shapes', () => {
  it.each(cases)('%s passes its schema', (_name, schema, example) => {
    expect(bodyErrors(schema, example)).toEqual([]);
  });

  it('tells the analysis versions apart', () => {
    expect(bodyErrors(analysisItemV1, analysisV2Example)).not.toEqual([]);
    expect(bodyErrors(analysisItemV3, analysisV2Example)).toEqual([
      { pointer: '/language', message: 'language is required' },
    ]);
  });
});
