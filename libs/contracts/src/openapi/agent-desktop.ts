import { agentInteractionExample, offerExample } from '../examples';
import type { JsonSchema } from '../json-schema';
import {
  agentInteraction,
  agentInteractionParams,
  agentParams,
  emptyBody,
  offer,
  offerParams,
  presenceUpdate,
  presenceView,
  transferRequest,
} from '../schemas/agent-desktop';
import { apiVersions } from '../versions';
import {
  acceptParameter,
  assemble,
  jsonBody,
  jsonResponse,
  noContent,
  type OpenApiObject,
  oauth2Schemes,
  openApiVersion,
  parameters,
  problemExample,
  problemResponse,
  problems,
  requireScope,
  servers,
  sharedSchemas,
  versionedMediaTypes,
} from './build';

const versions = apiVersions['agent-desktop'];

/** A JSON response in every media type the API answers (application/json and the vendor types). */
const json = (description: string, schema: JsonSchema, examples: Record<string, unknown> = {}) =>
  jsonResponse(description, schema, examples, versionedMediaTypes(versions));

const forbidden = problemResponse(
  403,
  "The token lacks the `agent` scope (`AUTH.FORBIDDEN`), or the interaction's provider does not permit this operation (`AGENT.ACTION_FORBIDDEN`, naming the operation).",
  problemExample(403, 'The provider AcmeCRM does not permit transferToAgent', { code: 'AGENT.ACTION_FORBIDDEN' }),
);
const wrongState = problemResponse(
  409,
  'The interaction or offer is not in a state that allows this (e.g. retrieve while not held, accept an expired offer) (`AGENT.INVALID_STATE`).',
  problemExample(409, 'Interaction is not held', { code: 'AGENT.INVALID_STATE' }),
);

function action(
  id: string,
  summary: string,
  params: JsonSchema,
  ok: OpenApiObject,
  body: JsonSchema = emptyBody,
  description?: string,
  extra: { bodyRequired?: boolean; errors?: Record<string, OpenApiObject> } = {},
): OpenApiObject {
  return {
    post: {
      operationId: id,
      tags: ['Agent actions'],
      summary,
      ...(description ? { description } : {}),
      security: requireScope('agent'),
      parameters: [acceptParameter(versions), ...parameters('path', params)],
      requestBody: { ...jsonBody(body), required: Boolean(extra.bodyRequired) },
      responses: {
        ...ok,
        ...problems({ 400: true, 401: true }),
        '403': forbidden,
        ...problems({ 404: true, 406: true }, versions),
        '409': wrongState,
        ...problems({ 413: true, 415: true, 429: true }),
        ...extra.errors,
      },
    },
  };
}

const interactionOk = {
  '200': json('The interaction after the action.', agentInteraction, { accepted: agentInteractionExample }),
};

const description = `The agent-desktop API: presence, offers and agent actions, as the routing engine needs them.

Decisions this suite made:
- Every path requires the \`agent\` scope; the agent is named in the path and must belong to the token's account.
- Presence: Ready (eligible for routing), Away, ExtendedAway, LoggedOut. An offer rings until \`expiresAt\` (configurable timeout); an unanswered or rejected offer counts Unexpected and the interaction is requeued.
- Actions on an interaction of a provider obey its effective permissions: release is allowed unless the provider set it 0; hold also permits retrieve; transfers need their own permission. A refused action is 403 \`AGENT.ACTION_FORBIDDEN\` naming the operation; an action in the wrong state is 409.
- Release from Connected or Held goes to wrap; end-wrap finishes the agent's work; release in wrap ends it at once.`;

/** OpenAPI 3.1 document of the agent-desktop API. */
export const agentDesktopDocument: OpenApiObject = assemble(
  {
    openapi: openApiVersion,
    info: { title: 'Agent Desktop API', version: '1.0.0', description },
    servers,
    tags: [{ name: 'Presence' }, { name: 'Offers' }, { name: 'Agent actions' }],
    paths: {
      '/agent-desktop/agents/{agentId}/presence': {
        get: {
          operationId: 'getPresence',
          tags: ['Presence'],
          summary: "The agent's presence",
          security: requireScope('agent'),
          parameters: [acceptParameter(versions), ...parameters('path', agentParams)],
          responses: {
            '200': json('Presence.', presenceView),
            ...problems({ 400: true, 401: true, 403: true, 404: true, 406: true, 429: true }, versions),
          },
        },
        put: {
          operationId: 'setPresence',
          tags: ['Presence'],
          summary: "Change the agent's presence",
          security: requireScope('agent'),
          parameters: [acceptParameter(versions), ...parameters('path', agentParams)],
          requestBody: jsonBody(presenceUpdate, {
            ready: { presence: 'Ready' },
            break: { presence: 'Away', reason: 'Break' },
          }),
          responses: {
            '200': json('Presence after the change.', presenceView),
            ...problems(
              { 400: true, 401: true, 403: true, 404: true, 406: true, 413: true, 415: true, 429: true },
              versions,
            ),
          },
        },
      },
      '/agent-desktop/agents/{agentId}/offers': {
        get: {
          operationId: 'listOffers',
          tags: ['Offers'],
          summary: 'Offers ringing at the agent',
          security: requireScope('agent'),
          parameters: [acceptParameter(versions), ...parameters('path', agentParams)],
          responses: {
            '200': json('Current offers.', { type: 'array', items: offer, maxItems: 100 }, { ringing: [offerExample] }),
            ...problems({ 400: true, 401: true, 403: true, 404: true, 406: true, 429: true }, versions),
          },
        },
      },
      '/agent-desktop/agents/{agentId}/offers/{offerId}/accept': action(
        'acceptOffer',
        'Accept an offer (the interaction is assigned; Connected)',
        offerParams,
        interactionOk,
      ),
      '/agent-desktop/agents/{agentId}/offers/{offerId}/reject': action(
        'rejectOffer',
        'Reject an offer (counted Unexpected; requeued)',
        offerParams,
        { '204': noContent('Rejected.') },
      ),
      '/agent-desktop/agents/{agentId}/interactions': {
        get: {
          operationId: 'listAgentInteractions',
          tags: ['Agent actions'],
          summary: 'Interactions assigned to the agent',
          security: requireScope('agent'),
          parameters: [acceptParameter(versions), ...parameters('path', agentParams)],
          responses: {
            '200': json('Current interactions.', { type: 'array', items: agentInteraction, maxItems: 200 }),
            ...problems({ 400: true, 401: true, 403: true, 404: true, 406: true, 429: true }, versions),
          },
        },
      },
      '/agent-desktop/agents/{agentId}/interactions/{interactionId}/hold': action(
        'hold',
        'Hold the external party (needs hold)',
        agentInteractionParams,
        interactionOk,
      ),
      '/agent-desktop/agents/{agentId}/interactions/{interactionId}/retrieve': action(
        'retrieve',
        'Retrieve the held party (needs hold)',
        agentInteractionParams,
        interactionOk,
      ),
      '/agent-desktop/agents/{agentId}/interactions/{interactionId}/transfer': action(
        'transfer',
        'Transfer to an agent (needs transferToAgent) or a route (needs transferToRoute)',
        agentInteractionParams,
        { '202': noContent('Transferred; the interaction is requeued for the target.') },
        transferRequest,
        undefined,
        {
          // The body names the target, so it is required (an empty body is a 400 naming agent/route).
          bodyRequired: true,
          errors: problems({ 422: 'The target agent or route does not exist (`AGENT.UNKNOWN_TARGET`).' }),
        },
      ),
      '/agent-desktop/agents/{agentId}/interactions/{interactionId}/end-wrap': action(
        'endWrap',
        'End wrap',
        agentInteractionParams,
        { '204': noContent("Wrap ended; the agent's work on it is over.") },
      ),
      '/agent-desktop/agents/{agentId}/interactions/{interactionId}/release': action(
        'release',
        'Release the interaction (allowed unless the provider set release 0)',
        agentInteractionParams,
        interactionOk,
        emptyBody,
        'From Connected or Held the agent enters wrap; the provider receives Release.',
      ),
    },
    components: { securitySchemes: oauth2Schemes },
  },
  {
    ...sharedSchemas,
    Presence: presenceView,
    PresenceUpdate: presenceUpdate,
    Offer: offer,
    AgentInteraction: agentInteraction,
    TransferRequest: transferRequest,
  },
);
