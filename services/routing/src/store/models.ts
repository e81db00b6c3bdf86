import { outboxField } from '@cc/bus';
import { tenantScoped } from '@cc/store';
import { type Connection, type Model, Schema, type SchemaDefinition } from 'mongoose';

const mixed = Schema.Types.Mixed;
const opts = { versionKey: false, minimize: false } as const;

/**
 * A schema from an untyped definition: documents are read lean and mapped by the repositories, and
 * letting mongoose infer document types from these definitions costs the type checker gigabytes.
 */
// biome-ignore lint/suspicious/noExplicitAny: see above
function schema(definition: Record<string, unknown>, options: Record<string, unknown> = opts): Schema<any> {
  // biome-ignore lint/suspicious/noExplicitAny: see above
  return new Schema<any>(definition as SchemaDefinition, options);
}

/** Interactions: the aggregate of routing (state, legs) with its outbox. Times are epoch ms. */
const interactionFields = {
  _id: String,
  accountId: { type: String, required: true },
  conversationId: String,
  requestId: { type: String, default: null },
  externalId: { type: String, default: null },
  provider: { type: String, default: null },
  permissions: { type: mixed, default: null },
  type: String,
  medium: String,
  route: String,
  plan: mixed,
  linkeddata: { type: mixed, default: [] },
  dataSources: { type: mixed, default: [] },
  baseSkills: { type: mixed, default: [] },
  skills: { type: mixed, default: [] },
  personalQueue: { type: mixed, default: null },
  recording: Boolean,
  state: String,
  createdAt: Number,
  queuedAt: { type: Number, default: null },
  queue: { type: mixed, default: null },
  offer: { type: mixed, default: null },
  agent: { type: mixed, default: null },
  legs: { type: mixed, default: [] },
  offerAttempts: Number,
  unexpectedOffers: Number,
  decisionCount: { type: Number, default: 0 },
  lastDecisionSig: { type: String, default: null },
  endedAt: { type: Number, default: null },
  liveKey: String,
  syncAgents: { type: [String], default: [] },
  updatedAt: Number,
  /** Changed by a write the account's lease owner has not merged into its memory yet (see the repository). */
  dirty: { type: Boolean, default: false },
  seq: Number,
  version: Number,
};
const interactionSchema = schema({ ...interactionFields, ...outboxField });
// Unique live externalIds per account; its accountId prefix also serves the per-account scans on MongoDB.
interactionSchema.index({ accountId: 1, liveKey: 1 }, { unique: true });
// The lease owner's read of what others changed since its last pass (an equality on both fields).
interactionSchema.index({ accountId: 1, dirty: 1 });
interactionSchema.plugin(tenantScoped);

/**
 * Routing decisions (the trace), one document each, apart from the interaction: a decision lists every
 * candidate agent, and kept on the interaction they made the document the engine reads on every pass
 * many times larger (FerretDB decodes whole documents, projections included).
 */
const decisionSchema = schema({
  _id: String,
  accountId: { type: String, required: true },
  interactionId: String,
  at: Number,
  decision: mixed,
});
decisionSchema.index({ accountId: 1, interactionId: 1, at: 1 });
decisionSchema.index({ at: 1 }); // expiry
decisionSchema.plugin(tenantScoped);

/** Ended interactions (moved out of `interactions` once their events are out): traces and history. */
const archiveSchema = schema(interactionFields);
archiveSchema.index({ endedAt: 1 }); // expiry
archiveSchema.plugin(tenantScoped);

/** Agents: profile, presence, work list (capacity in use) with its outbox. */
const agentSchema = schema(
  {
    _id: String,
    accountId: { type: String, required: true },
    username: String,
    usernameKey: String,
    displayName: { type: String, default: null },
    skills: { type: mixed, default: [] },
    capacity: mixed,
    presence: String,
    presenceReason: { type: String, default: null },
    presenceSince: Number,
    everLoggedIn: Boolean,
    idleSince: Number,
    missedOffers: Number,
    work: { type: mixed, default: [] },
    workCount: { type: Number, default: 0 },
    workloadSince: { type: Number, default: null },
    activitySeq: Number,
    createdAt: Number,
    version: Number,
    /** Changed by a write the account's lease owner has not merged into its memory yet (see the repository). */
    dirty: { type: Boolean, default: false },
    ...outboxField,
  },
  opts,
);
agentSchema.index({ accountId: 1, usernameKey: 1 }, { unique: true });
agentSchema.index({ accountId: 1, dirty: 1 });
agentSchema.plugin(tenantScoped);

/** Named configuration objects (skills, routes, interaction plans), unique case-insensitively per account. */
function namedSchema(fields: Record<string, unknown>) {
  const named = schema({
    _id: String,
    accountId: { type: String, required: true },
    name: String,
    nameKey: String,
    createdAt: Number,
    updatedAt: Number,
    ...fields,
  });
  named.index({ accountId: 1, nameKey: 1 }, { unique: true });
  named.plugin(tenantScoped);
  return named;
}

const skillSchema = namedSchema({ description: { type: String, default: null } });
const routeSchema = namedSchema({
  interactionPlan: String,
  planKey: String,
  description: { type: String, default: null },
});
routeSchema.index({ accountId: 1, planKey: 1 });
const planSchema = namedSchema({
  reportingGroup: { type: String, default: null },
  applets: mixed,
  skillKeys: [String],
});

/** Read model of cc.provider.v1: provider name → effective permissions, deleted flag, last version. */
const providerSchema = schema(
  {
    _id: String,
    accountId: { type: String, required: true },
    name: String,
    permissions: mixed,
    deleted: Boolean,
    version: Number,
    updatedAt: Number,
  },
  opts,
);
providerSchema.plugin(tenantScoped);

/**
 * Live externalIds: `<account>:<release key>` → the interaction holding it, so Invoke finds an
 * externalId by `_id` rather than by scanning interactions. A hint, checked against the interaction;
 * the unique `liveKey` index of interactions is the guard.
 */
const externalIdSchema = schema({
  _id: String,
  accountId: { type: String, required: true },
  interactionId: String,
  createdAt: Number,
});
externalIdSchema.plugin(tenantScoped);

/** requestId dedupe: the first outcome of each requestId per account, kept at least 24 hours. */
const requestSchema = schema(
  {
    _id: String,
    accountId: { type: String, required: true },
    requestId: String,
    hash: String,
    status: String,
    action: String,
    externalId: { type: String, default: null },
    interactionId: { type: String, default: null },
    outcome: { type: String, default: null },
    createdAt: Number,
    expiresAt: Number,
  },
  opts,
);
requestSchema.index({ expiresAt: 1 }); // expiry, across accounts
requestSchema.plugin(tenantScoped);

/**
 * One document per account for the assignment engine: when routing should next run (`wakeAt`) and which
 * instance holds the account's lease. Not tenant data: the engine scans it across accounts.
 */
const accountSchema = schema(
  { _id: String, wakeAt: Number, owner: { type: String, default: null }, leaseUntil: Number },
  opts,
);
accountSchema.index({ wakeAt: 1 });

/** The models of routing's database. */
export function createModels(conn: Connection) {
  // biome-ignore lint/suspicious/noExplicitAny: see schema()
  const model = (name: string, s: Schema<any>, collection: string): Model<any> =>
    // biome-ignore lint/suspicious/noExplicitAny: see schema()
    (conn.models[name] as Model<any> | undefined) ?? conn.model<any>(name, s, collection);
  return {
    interactions: model('Interaction', interactionSchema, 'interactions'),
    agents: model('Agent', agentSchema, 'agents'),
    skills: model('Skill', skillSchema, 'skills'),
    routes: model('Route', routeSchema, 'routes'),
    plans: model('InteractionPlan', planSchema, 'interaction_plans'),
    providers: model('Provider', providerSchema, 'providers'),
    requests: model('InvokeRequest', requestSchema, 'invoke_requests'),
    accounts: model('RoutingAccount', accountSchema, 'routing_accounts'),
    archive: model('InteractionArchive', archiveSchema, 'interaction_archive'),
    decisions: model('InteractionDecision', decisionSchema, 'interaction_decisions'),
    externalIds: model('ExternalId', externalIdSchema, 'external_ids'),
  };
}

/** Routing's models. */
export type Models = ReturnType<typeof createModels>;
