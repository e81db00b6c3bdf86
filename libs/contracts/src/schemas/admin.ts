import { type JsonSchema, nullable, text } from '../json-schema';
import { limits } from '../limits';
import { scopes } from './auth';
import { count, dateTime, guid, name, pagingQueryProperties, utcMillis } from './common';
import { interactionType, skillRequirement } from './interactions';

/** Path parameter schema for a single named object (`{name}`). */
export const nameParams: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name },
  additionalProperties: false,
};

/** Path parameter schema for an id (`{id}`): a GUID. */
export const idParams: JsonSchema = {
  type: 'object',
  required: ['id'],
  properties: { id: guid },
  additionalProperties: false,
};

/** Query of admin listings: paging only. */
export const adminListQuery: JsonSchema = {
  type: 'object',
  properties: { ...pagingQueryProperties },
  additionalProperties: false,
};

const flagProperties: Record<string, JsonSchema> = {
  agentSummaries: { type: 'boolean', description: 'GET /stats/wfm/agent-summaries returns data (default false).' },
  conversationAnalysis: { type: 'boolean', description: 'Recorded calls are analysed (default true).' },
  v0Statistics: { type: 'boolean', description: 'The deprecated v0 statistics API answers (default true).' },
};

/** Account feature flags as stored; unknown flags are refused so a typo never passes silently. */
export const featureFlags: JsonSchema = {
  type: 'object',
  description: 'Features enabled for the account. Agent summaries return data only when `agentSummaries` is true.',
  required: ['agentSummaries', 'conversationAnalysis', 'v0Statistics'],
  properties: flagProperties,
  additionalProperties: false,
};

/** PATCH body of an account's feature flags: at least one known flag. */
export const featureFlagsPatch: JsonSchema = {
  type: 'object',
  properties: flagProperties,
  additionalProperties: false,
  minProperties: 1,
};

/** An account identifier: lower-case letters, digits and hyphens. */
export const accountId: JsonSchema = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9-]{1,62}$',
  'x-message': 'must be 2 to 63 lower-case letters, digits or hyphens, starting with a letter or digit',
};

/** POST body creating an account (operator only). */
export const accountCreate: JsonSchema = {
  type: 'object',
  required: ['accountId', 'name'],
  properties: { accountId, name: text(200), featureFlags: featureFlagsPatch },
  additionalProperties: false,
};

/** An account as the admin API shows it. */
export const accountView: JsonSchema = {
  type: 'object',
  required: ['accountId', 'name', 'featureFlags', 'createdAt'],
  properties: { accountId, name: text(200), featureFlags, createdAt: utcMillis },
};

/** POST body creating an API client. */
export const apiClientCreate: JsonSchema = {
  type: 'object',
  required: ['name', 'scopes'],
  properties: {
    name: text(200),
    scopes: {
      type: 'array',
      items: { type: 'string', enum: Object.keys(scopes) },
      minItems: 1,
      maxItems: Object.keys(scopes).length,
      uniqueItems: true,
      description: 'Scopes the client may request (one per token).',
    },
  },
  additionalProperties: false,
};

/** An API client as the admin API shows it; the secret only in the creation response. */
export const apiClientView: JsonSchema = {
  type: 'object',
  required: ['clientId', 'name', 'scopes', 'createdAt'],
  properties: {
    clientId: text(200),
    name: text(200),
    scopes: apiClientCreate.properties?.scopes as JsonSchema,
    clientSecret: { type: 'string', maxLength: 500, description: 'Returned once, at creation; stored as a slow hash.' },
    createdAt: utcMillis,
  },
};

/** 201 body of POST /admin/clients: the client with its secret, shown this once. */
export const apiClientCreated: JsonSchema = {
  ...apiClientView,
  required: ['clientId', 'name', 'scopes', 'clientSecret', 'createdAt'],
};

/** 201 body of POST /admin/accounts: the account and its first admin client, whose secret is shown this once. */
export const accountCreated: JsonSchema = {
  type: 'object',
  required: [...(accountView.required ?? []), 'adminClient'],
  properties: {
    ...accountView.properties,
    adminClient: {
      type: 'object',
      required: ['clientId', 'clientSecret', 'scopes'],
      properties: {
        clientId: text(200),
        clientSecret: { type: 'string', maxLength: 500, description: 'Returned once; stored as a slow hash.' },
        scopes: { type: 'array', items: { type: 'string', const: 'admin' }, minItems: 1, maxItems: 1 },
      },
    },
  },
};

/** v0 credentials as the admin API shows them; the API token only in the creation response. */
export const v0CredentialView: JsonSchema = {
  type: 'object',
  required: ['accountKey', 'createdAt'],
  properties: {
    accountKey: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
    apiToken: { type: 'string', maxLength: 500, description: 'Returned once, at creation.' },
    createdAt: utcMillis,
  },
};

/** A skill definition. */
export const skill: JsonSchema = {
  type: 'object',
  required: ['name'],
  properties: { name: { ...name, description: 'Unique case-insensitively.' }, description: text(500) },
  additionalProperties: false,
};

/** A route: a name clients dispatch to, pointing at an interaction plan. */
export const route: JsonSchema = {
  type: 'object',
  required: ['name', 'interactionPlan'],
  properties: { name, interactionPlan: { ...name, description: 'Name of the plan to run.' }, description: text(500) },
  additionalProperties: false,
};

const appletName: JsonSchema = { ...name, description: 'Unique within the plan; targets of goto refer to it.' };

function applet(type: string, description: string, properties: Record<string, JsonSchema>, required: string[]) {
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
    then: {
      description,
      properties: { type: { const: type }, name: appletName, ...properties },
      required: ['name', ...required],
      additionalProperties: false,
    },
  } satisfies JsonSchema;
}

/** Where a Queue applet goes when its timeout expires. */
export const onTimeout: JsonSchema = {
  type: 'object',
  required: ['action'],
  properties: {
    action: { type: 'string', enum: ['next', 'goto', 'release'] },
    target: appletName,
  },
  additionalProperties: false,
  if: { properties: { action: { const: 'goto' } }, required: ['action'] },
  // biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema keyword.
  then: { required: ['target'], 'x-message': 'is required when action is goto' },
};

/** One applet of an interaction plan; `type` selects its settings. */
export const appletSchema: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['SetDataSource', 'SkillTagger', 'Queue', 'CallRecording', 'Announcement', 'Menu'] },
  },
  allOf: [
    applet(
      'SetDataSource',
      'Sets a data source from an interactionproperty item of the Invoke request.',
      { dataSource: name, fromProperty: { ...name, description: 'Key of the interactionproperty item.' } },
      ['dataSource', 'fromProperty'],
    ),
    applet(
      'SkillTagger',
      'Adds skills to the interaction.',
      { skills: { type: 'array', items: skillRequirement, minItems: 1, maxItems: limits.maxSkills } },
      ['skills'],
    ),
    applet(
      'Queue',
      'Waits for an eligible agent (ACD); on timeout follows onTimeout.',
      {
        virtualQueue: name,
        timeoutSeconds: { type: 'integer', minimum: 1, maximum: limits.maxSeconds },
        onTimeout,
      },
      [],
    ),
    applet(
      'CallRecording',
      'Records the interaction (live only).',
      { enabled: { type: 'boolean', default: true } },
      [],
    ),
    applet('Announcement', 'Plays a message (voice only).', { message: text(1000) }, ['message']),
    applet(
      'Menu',
      'Offers options (voice only); each option goes to an applet.',
      {
        prompt: text(1000),
        options: {
          type: 'array',
          maxItems: 12,
          minItems: 1,
          items: {
            type: 'object',
            required: ['digit', 'goto'],
            properties: { digit: { type: 'string', pattern: '^[0-9*#]$' }, goto: appletName },
            additionalProperties: false,
          },
        },
      },
      ['prompt', 'options'],
    ),
  ],
};

/** An interaction plan: applets run in order for each interaction. */
export const interactionPlan: JsonSchema = {
  type: 'object',
  required: ['name', 'applets'],
  properties: {
    name,
    reportingGroup: text(200),
    applets: { type: 'array', items: appletSchema, minItems: 1, maxItems: 100 },
  },
  additionalProperties: false,
};

/** Capacity per interaction type: concurrent live calls, chats (semiLive) and nonlive items. */
export const capacity: JsonSchema = {
  type: 'object',
  required: ['calls', 'semiLive', 'nonLive'],
  properties: {
    calls: { type: 'integer', minimum: 0, maximum: 10 },
    semiLive: { type: 'integer', minimum: 0, maximum: 50 },
    nonLive: { type: 'integer', minimum: 0, maximum: 100 },
  },
  additionalProperties: false,
};

/** Body creating or replacing an agent. */
export const agentWrite: JsonSchema = {
  type: 'object',
  required: ['username', 'capacity'],
  properties: {
    username: { ...name, description: 'Unique case-insensitively within the account.' },
    displayName: text(200),
    skills: {
      type: 'array',
      maxItems: limits.maxSkills,
      items: {
        type: 'object',
        required: ['name'],
        properties: { name, level: { type: 'integer', minimum: 1, maximum: 10, default: 5 } },
        additionalProperties: false,
      },
    },
    capacity,
  },
  additionalProperties: false,
};

/** The presence states of an agent. */
export const presenceState: JsonSchema = { type: 'string', enum: ['Ready', 'Away', 'ExtendedAway', 'LoggedOut'] };

/** An agent as the admin API shows it. */
export const agentView: JsonSchema = {
  type: 'object',
  required: ['agentId', 'username', 'capacity', 'skills', 'presence', 'createdAt'],
  properties: {
    agentId: guid,
    username: name,
    displayName: text(200),
    skills: agentWrite.properties?.skills as JsonSchema,
    capacity,
    presence: presenceState,
    createdAt: utcMillis,
  },
};

/** One routing decision recorded on an interaction, for the admin trace endpoint. */
export const routingDecision: JsonSchema = {
  type: 'object',
  required: ['at', 'rule', 'candidates', 'winner'],
  properties: {
    at: utcMillis,
    rule: {
      type: 'string',
      maxLength: 100,
      examples: ['personal-queue', 'longest-idle', 'optional-skills-rank', 'no-eligible-agent'],
    },
    interactionType,
    candidates: {
      type: 'array',
      maxItems: 1000,
      items: {
        type: 'object',
        required: ['agentId', 'excluded'],
        properties: {
          agentId: guid,
          username: name,
          excluded: {
            ...nullable(text(200)),
            description:
              'Why the agent was not eligible (e.g. presence Away, no calls capacity, missing skill X); null if eligible.',
          },
          idleMs: count,
          optionalSkillsMatched: count,
        },
      },
    },
    winner: nullable(guid),
  },
};

/** The routing trace of an interaction. */
export const routingTrace: JsonSchema = {
  type: 'object',
  required: ['interactionId', 'decisions'],
  properties: { interactionId: guid, decisions: { type: 'array', items: routingDecision, maxItems: 1000 } },
};

/** States of a notification delivery. */
export const deliveryState: JsonSchema = { type: 'string', enum: ['pending', 'delivered', 'failed', 'dead'] };

/** One notification delivery with every attempt. */
export const delivery: JsonSchema = {
  type: 'object',
  required: ['deliveryId', 'provider', 'interactionId', 'notification', 'state', 'attempts', 'createdAt'],
  properties: {
    deliveryId: { ...guid, description: 'Equals the notificationid and the webhook-id.' },
    provider: name,
    interactionId: guid,
    notification: { type: 'string', enum: ['AssignToAgent', 'Release'] },
    state: deliveryState,
    nextAttemptAt: nullable(utcMillis),
    attempts: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        required: ['at', 'status', 'latencyMs', 'error'],
        properties: {
          at: utcMillis,
          status: { type: ['integer', 'null'], description: 'HTTP status, or null when no response came.' },
          latencyMs: count,
          error: nullable(text(500)),
        },
      },
    },
    createdAt: utcMillis,
  },
};

/** Query of GET /admin/deliveries. */
export const deliveriesQuery: JsonSchema = {
  type: 'object',
  properties: { provider: name, state: deliveryState, since: dateTime, ...pagingQueryProperties },
  additionalProperties: false,
};

/** Body of POST /admin/providers/{name}/deliveries/replay: replays failed and dead deliveries since a time. */
export const replayRequest: JsonSchema = {
  type: 'object',
  required: ['since'],
  properties: {
    since: dateTime,
    states: {
      type: 'array',
      items: { type: 'string', enum: ['failed', 'dead'] },
      minItems: 1,
      maxItems: 2,
      uniqueItems: true,
      default: ['failed', 'dead'],
    },
  },
  additionalProperties: false,
};

/** The outcome of a replay request. */
export const replayResult: JsonSchema = {
  type: 'object',
  required: ['replayed'],
  properties: { replayed: count },
};

/** The circuit-breaker state of one provider endpoint. */
export const breakerView: JsonSchema = {
  type: 'object',
  required: ['provider', 'state', 'failures'],
  properties: {
    provider: name,
    state: { type: 'string', enum: ['closed', 'open', 'halfOpen', 'disabled'] },
    failures: count,
    openedAt: nullable(utcMillis),
  },
};

/** The response of a signing-secret rotation. */
export const signingSecretRotation: JsonSchema = {
  type: 'object',
  required: ['signingSecret', 'previousValidUntil'],
  properties: {
    signingSecret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/=]{32,128}$', description: 'Returned once.' },
    previousValidUntil: { ...utcMillis, description: 'The previous secret still signs until then.' },
  },
};
