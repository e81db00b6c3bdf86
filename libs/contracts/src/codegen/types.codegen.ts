// Generates src/types.generated.ts from the contract schemas (json-schema-to-typescript), so the TypeScript
// types are the schemas' own. `pnpm --filter @cc/contracts generate:types` rewrites the file; the unit test
// test/types.test.ts regenerates it in memory and fails when the committed file differs (a schema changed
// without regenerating). Not exported from the package: only the generator and its test load it.
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import type { JsonSchema } from '../json-schema';
import * as admin from '../schemas/admin';
import * as desktop from '../schemas/agent-desktop';
import * as analysis from '../schemas/analysis';
import * as auth from '../schemas/auth';
import * as common from '../schemas/common';
import * as events from '../schemas/events/index';
import * as interactions from '../schemas/interactions';
import * as notification from '../schemas/notification';
import * as providers from '../schemas/providers';
import * as statistics from '../schemas/statistics';
import * as summaries from '../schemas/summaries';
import * as v0 from '../schemas/v0';

/**
 * Every generated type: its name and its schema. A schema object listed here is referenced by this name
 * wherever another listed schema contains the same object.
 */
export const generatedTypes: Readonly<Record<string, JsonSchema>> = {
  // Interactions API
  InteractionType: interactions.interactionType,
  LinkedDataItem: interactions.linkedDataItem,
  SkillRequirement: interactions.skillRequirement,
  PersonalQueue: interactions.personalQueue,
  RoutingData: interactions.routingData,
  InteractionRequest: interactions.interaction,
  Invocation: interactions.invocation,
  InvokeResult: interactions.invokeResult,
  InvokeResponse: interactions.invokeResponse,
  ProviderHeaders: providers.providerHeaders,
  AgentActionsPermitted: providers.agentActionsPermitted,
  ProviderSettings: providers.providerSettings,
  EffectivePermissions: providers.effectivePermissions,
  ProviderView: providers.providerView,
  ProviderNotification: notification.providerNotification,
  // Statistics, summaries, analysis, v0
  PageMeta: common.pageMeta,
  AgentSummariesQueryInput: summaries.agentSummariesQuery,
  AgentSummary: summaries.agentSummary,
  AgentSummariesResponse: summaries.agentSummariesResponse,
  Include: statistics.include,
  AgentActivitiesQueryInput: statistics.agentActivitiesQuery,
  StatsInteractionsQueryInput: statistics.statsInteractionsQuery,
  AgentActivity: statistics.agentActivity,
  ChannelEvent: statistics.channelEvent,
  Channel: statistics.channel,
  InteractionRecord: statistics.interactionRecord,
  AnalysisQueryInput: analysis.analysisQuery,
  AnalysisListQueryInput: analysis.analysisListQuery,
  CallTimeBreakDown: analysis.callTimeBreakDown,
  AnalysisItemV1: analysis.analysisItemV1,
  AnalysisItemV2: analysis.analysisItemV2,
  AnalysisItemV3: analysis.analysisItemV3,
  V0AgentState: v0.v0AgentState,
  V0OutboundCall: v0.v0OutboundCall,
  V0InboundCall: v0.v0InboundCall,
  V0StatisticsQuery: v0.v0StatisticsQuery,
  // Auth
  TokenRequest: auth.tokenRequest,
  TokenResponse: auth.tokenResponse,
  // Events: the envelope and each type's data
  CloudEventEnvelope: events.anyCloudEvent,
  SealedSecrets: events.sealedSecrets,
  ProviderRegisteredData: events.providerRegistered,
  ProviderUpdatedData: events.providerUpdated,
  ProviderDeletedData: events.providerDeleted,
  InteractionQueuedData: events.interactionQueued,
  InteractionAppletExecutedData: events.interactionAppletExecuted,
  InteractionOfferedData: events.interactionOffered,
  InteractionAssignedData: events.interactionAssigned,
  InteractionRejectedData: events.interactionRejected,
  InteractionHeldData: events.interactionHeld,
  InteractionRetrievedData: events.interactionRetrieved,
  InteractionTransferredData: events.interactionTransferred,
  InteractionWrapStartedData: events.interactionWrapStarted,
  InteractionWrapEndedData: events.interactionWrapEnded,
  InteractionReleasedData: events.interactionReleased,
  InteractionRecordedData: events.interactionRecorded,
  PresenceChangedData: events.presenceChanged,
  WorkloadChangedData: events.workloadChanged,
  SegmentStartedData: events.segmentStarted,
  SegmentEndedData: events.segmentEnded,
  AnalysisStartedData: events.analysisStarted,
  AnalysisCompletedData: events.analysisCompleted,
  AnalysisFailedData: events.analysisFailed,
  DeliveryDeliveredData: events.deliveryDelivered,
  DeliveryAttemptFailedData: events.deliveryAttemptFailed,
  DeliveryDeadLetteredData: events.deliveryDeadLettered,
  DeliveryEndpointDisabledData: events.deliveryEndpointDisabled,
  FeatureFlagsChangedData: events.featureFlagsChanged,
  EventDataMap: {
    type: 'object',
    description: 'The data type of each event type.',
    required: Object.keys(events.eventSchemas),
    properties: events.eventSchemas,
  },
  // Admin API
  FeatureFlags: admin.featureFlags,
  Skill: admin.skill,
  Route: admin.route,
  Applet: admin.appletSchema,
  InteractionPlan: admin.interactionPlan,
  Workload: admin.capacity,
  AgentWrite: admin.agentWrite,
  PresenceState: admin.presenceState,
  AgentView: admin.agentView,
  RoutingDecision: admin.routingDecision,
  RoutingTrace: admin.routingTrace,
  DeliveryState: admin.deliveryState,
  Delivery: admin.delivery,
  ReplayRequest: admin.replayRequest,
  BreakerView: admin.breakerView,
  AccountView: admin.accountView,
  ApiClientCreate: admin.apiClientCreate,
  ApiClientView: admin.apiClientView,
  // Agent desktop API
  PresenceUpdate: desktop.presenceUpdate,
  PresenceView: desktop.presenceView,
  Offer: desktop.offer,
  AgentInteraction: desktop.agentInteraction,
  TransferRequest: desktop.transferRequest,
};

const header = `// GENERATED by libs/contracts/src/codegen/types.codegen.ts from the contract schemas: do not edit.
// Regenerate with \`pnpm --filter @cc/contracts generate:types\`; test/types.test.ts fails when this file is stale.
// src/types.ts re-exports these under the names the services use, with the few derived types schemas cannot say.
/* eslint-disable */
`;

/**
 * Rewrites what json-schema-to-typescript cannot read into what it can, keeping the meaning for types:
 * an `allOf` of `if {type: const} then {...}` branches (a discriminated union the validator checks with
 * precise messages) becomes an `anyOf` of the branches. Shared objects stay shared (one name each).
 */
function forTypes(schema: JsonSchema, seen = new Map<object, JsonSchema>()): JsonSchema {
  const done = seen.get(schema);
  if (done) return done;
  const out: Record<string, unknown> = {};
  seen.set(schema, out as JsonSchema);
  const branches = schema.allOf?.every((s) => s.if && s.then && !s.else) ? schema.allOf : undefined;
  for (const [key, value] of Object.entries(schema)) {
    // Validator-only keywords: messages, conditional requirements, negations (types cannot say them).
    if (key.startsWith('x-') || key === 'dependentSchemas' || key === 'not' || key === 'examples') continue;
    if (key === 'if' || key === 'then' || key === 'else') continue;
    if (branches && key === 'allOf') continue;
    if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
      const typed = (value as JsonSchema[]).filter((s) => !constraintOnly(s));
      if (typed.length) out[key] = mapValue(key, typed, seen);
      continue;
    }
    out[key] = mapValue(key, value, seen);
  }
  // "At least one of these keys" (an anyOf of `required`) over the object's own properties: a union of
  // the variants, each requiring its key(s), so the type says what the validator demands.
  const oneOfKeys = schema.properties && schema.allOf?.find((s) => s.anyOf?.every((a) => isRequiredOnly(a)));
  if (oneOfKeys && !branches) {
    out.anyOf = (oneOfKeys.anyOf as JsonSchema[]).map((a) => ({
      type: 'object',
      properties: out.properties,
      required: [...(schema.required ?? []), ...(a.required ?? [])],
      additionalProperties: out.additionalProperties ?? false,
    }));
    delete out.properties;
    delete out.required;
  }
  // `if {K: const V} then {required: [...]}` over an enum K: one variant for V (with the extra requirement), one
  // for the other values, e.g. onTimeout `{action: 'goto', target} | {action: 'next' | 'release', target?}`.
  const cond = conditionalRequirement(schema);
  if (cond && !oneOfKeys && !branches) {
    const properties = out.properties as Record<string, JsonSchema>;
    const base = { type: 'object', additionalProperties: out.additionalProperties ?? false };
    const others = (schema.properties?.[cond.key] as JsonSchema).enum?.filter((v) => v !== cond.value) ?? [];
    out.anyOf = [
      {
        ...base,
        properties: { ...properties, [cond.key]: { const: cond.value } },
        required: [...new Set([...(schema.required ?? []), cond.key, ...cond.required])],
      },
      ...(others.length
        ? [{ ...base, properties: { ...properties, [cond.key]: { enum: others } }, required: schema.required ?? [] }]
        : []),
    ];
    delete out.properties;
    delete out.required;
  }
  if (branches) {
    out.anyOf = branches.map((b) => {
      const then = forTypes(b.then as JsonSchema, seen);
      return {
        type: 'object',
        ...then,
        properties: { ...(out.properties as object), ...then.properties },
        required: [...new Set([...((out.required as string[]) ?? []), ...(then.required ?? [])])],
      };
    });
    delete out.properties;
    delete out.required;
  }
  return out as JsonSchema;
}

const schemaMaps = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
const schemaLists = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const subschemas = new Set(['items', 'additionalProperties', 'propertyNames', 'contains']);

/** Maps the value of keyword `key`: subschemas are rewritten, anything else (enum, const, required ...) copied. */
function mapValue(key: string, value: unknown, seen: Map<object, JsonSchema>): unknown {
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (schemaMaps.has(key) && isObject) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, forTypes(v as JsonSchema, seen)]));
  }
  if (schemaLists.has(key) && Array.isArray(value)) return value.map((v) => forTypes(v as JsonSchema, seen));
  if (subschemas.has(key) && isObject) return forTypes(value as JsonSchema, seen);
  return value;
}

/** `if: {properties: {K: {const: V}}}` with a `then` that only requires keys, no `else`, K an enum property. */
function conditionalRequirement(s: JsonSchema): { key: string; value: unknown; required: string[] } | undefined {
  const props = s.if?.properties;
  if (!props || !s.then || s.else || !s.properties) return undefined;
  const keys = Object.keys(props);
  const key = keys[0];
  const test = key === undefined ? undefined : (props[key] as JsonSchema);
  if (keys.length !== 1 || key === undefined || !test || !('const' in test)) return undefined;
  if (!(s.properties[key] as JsonSchema | undefined)?.enum) return undefined;
  if (!Object.keys(s.then).every((k) => k === 'required' || k.startsWith('x-'))) return undefined;
  return { key, value: test.const, required: [...(s.then.required ?? [])] };
}

const isRequiredOnly = (s: JsonSchema) => Object.keys(s).every((k) => k === 'required');

/** A (sub)schema that only requires keys (e.g. "interval, latest or start"): a validation rule, no type. */
function constraintOnly(s: JsonSchema): boolean {
  const keys = Object.keys(s).filter((k) => !k.startsWith('x-') && k !== 'description');
  const nested = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
  return (
    keys.every((k) => k === 'required' || k === 'anyOf' || k === 'oneOf' || k === 'allOf' || k === 'not') &&
    nested.every(constraintOnly)
  );
}

/** The generated file's text (deterministic: same schemas, same text). */
export async function generateTypesSource(): Promise<string> {
  const seen = new Map<object, JsonSchema>();
  const defs = Object.fromEntries(Object.entries(generatedTypes).map(([k, s]) => [k, forTypes(s, seen)]));
  // Each definition gets its type name as title, so every reference to it is by name.
  const titled = new Map<JsonSchema, string>();
  for (const [k, s] of Object.entries(defs)) {
    if (titled.has(s)) throw new Error(`${k} and ${titled.get(s)} are the same schema`);
    titled.set(s, k);
    (s as { title?: string }).title = k;
  }
  const root = { title: 'Contracts', type: 'object', additionalProperties: false, $defs: defs };
  const text = await compile(root as JSONSchema, 'Contracts', {
    bannerComment: '',
    format: false,
    additionalProperties: false,
    unreachableDefinitions: true,
    ignoreMinAndMaxItems: true,
    declareExternallyReferenced: true,
  });
  const body = text
    .replace(/export interface Contracts \{\s*\}\n/, '')
    // The generator's "referenced by" notes name the synthetic root: noise.
    .replace(
      /\n \* ?\n \* This interface was referenced by `[^`]*`'s JSON-Schema( definition)?\n \* via the `[a-zA-Z]+` "[^"]+"\./g,
      '',
    )
    .replace(
      /\/\*\*\n \* This interface was referenced by `[^`]*`'s JSON-Schema( definition)?\n \* via the `[a-zA-Z]+` "[^"]+"\.\n \*\/\n/g,
      '',
    );
  return `${header}\n${body.trim()}\n`;
}

/** This generator's own path (the test runs it as a child process: its dependencies need ESM loading). */
export const codegenPath = __filename;

/** Where the generated file lives. */
export const generatedTypesPath = resolve(__dirname, '../types.generated.ts');

// `--print` writes the text to stdout instead (the unit test compares it with the committed file).
if (require.main === module) {
  generateTypesSource().then(
    (text) => {
      if (process.argv.includes('--print')) {
        process.stdout.write(text);
        return;
      }
      writeFileSync(generatedTypesPath, text);
      process.stdout.write(`wrote ${generatedTypesPath}\n`);
    },
    (err) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      process.exit(1);
    },
  );
}
