import { outboxField } from '@cc/bus';
import { tenantScoped } from '@cc/store';
import { type Connection, type Model, Schema } from 'mongoose';

/** One recorded HTTP attempt of a delivery. */
export interface AttemptRecord {
  at: Date;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

/** A delivery: one notification to one provider endpoint, with its state and every attempt. */
export interface DeliveryDoc {
  /** = notificationid = webhook-id. */
  _id: string;
  accountId: string;
  provider: string;
  /** Account and provider: the unit of breakers and concurrency limits. */
  endpointKey: string;
  interactionId: string;
  /** Account and interaction: the unit of ordering. */
  interactionKey: string;
  notification: 'AssignToAgent' | 'Release';
  /** The interaction event's sequence (ordering per interaction). */
  seq: number;
  eventId: string;
  /** The exact POST body (serialised once). */
  body: string;
  traceparent: string | null;
  state: 'pending' | 'delivered' | 'failed' | 'dead';
  /** When the next attempt is due (recovery after a crash re-arms its timer from it). Null once finished. */
  nextAttemptAt: Date | null;
  attempts: AttemptRecord[];
  /** Attempts in the current cycle (a replay starts a new one). */
  attemptCount: number;
  cycleStartedAt: Date;
  /** The notifier instance that holds this open delivery in memory (see `leaseUntil`). */
  owner: string | null;
  /** The owner renews this while it runs; past it, another instance may take the delivery over. */
  leaseUntil: Date | null;
  /** Optimistic concurrency: every outcome write, takeover and replay checks and bumps it. */
  version: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
  deliveredAt: Date | null;
  deadAt: Date | null;
  /** When it was delivered or died (expiry: finished deliveries are deleted after the retention). */
  finishedAt: Date | null;
  outbox?: unknown[];
  outboxSeq?: number;
}

/** The notifier's read model of a provider (from cc.provider.v1), plus its delivery status. */
export interface ProviderDoc {
  _id?: unknown;
  accountId: string;
  provider: string;
  version: number;
  endpoint: string | null;
  headerNames: string[];
  /** The event's sealed headers and signing secrets, kept encrypted at rest. */
  sealed: { kid: string; alg: 'A256GCM'; iv: string; ciphertext: string; tag: string } | null;
  deleted: boolean;
  /** Set when the endpoint answered 410 Gone; cleared by the next registration. */
  disabledAt: Date | null;
  updatedAt: Date;
  outbox?: unknown[];
  outboxSeq?: number;
}

/** What the notifier keeps of a queued interaction for the notification params (route, requestId). */
export interface InteractionInfoDoc {
  /** The interaction key (`<accountId>:<interactionId>`). */
  _id: string;
  accountId: string;
  interactionId: string;
  provider: string;
  route: string | null;
  requestId: string | null;
  createdAt: Date;
}

const attemptSchema = new Schema<AttemptRecord>(
  { at: Date, status: { type: Number, default: null }, latencyMs: Number, error: { type: String, default: null } },
  { _id: false, versionKey: false },
);

function deliverySchema(collection: string): Schema<DeliveryDoc> {
  const schema = new Schema<DeliveryDoc>(
    {
      _id: String,
      accountId: { type: String, required: true },
      provider: { type: String, required: true },
      endpointKey: { type: String, required: true },
      interactionId: { type: String, required: true },
      interactionKey: { type: String, required: true },
      notification: { type: String, required: true },
      seq: { type: Number, required: true },
      eventId: { type: String, required: true },
      body: { type: String, required: true },
      traceparent: { type: String, default: null },
      state: { type: String, required: true },
      nextAttemptAt: { type: Date, default: null },
      attempts: { type: [attemptSchema], default: [] },
      attemptCount: { type: Number, default: 0 },
      cycleStartedAt: Date,
      owner: { type: String, default: null },
      leaseUntil: { type: Date, default: null },
      version: { type: Number, default: 0 },
      lastStatus: { type: Number, default: null },
      lastError: { type: String, default: null },
      createdAt: Date,
      updatedAt: Date,
      deliveredAt: { type: Date, default: null },
      deadAt: { type: Date, default: null },
      finishedAt: { type: Date, default: null },
      ...outboxField,
    },
    { versionKey: false, collection },
  );
  // Recovery and takeover read open deliveries by state (equality); lease renewal by owner; expiry by finishedAt.
  schema.index({ state: 1, nextAttemptAt: 1 });
  schema.index({ owner: 1 });
  schema.index({ finishedAt: 1 });
  schema.index({ interactionId: 1 });
  schema.index({ accountId: 1, provider: 1, createdAt: -1 });
  return schema;
}

function providerSchema(): Schema<ProviderDoc> {
  const schema = new Schema<ProviderDoc>(
    {
      accountId: { type: String, required: true },
      provider: { type: String, required: true },
      version: { type: Number, required: true },
      endpoint: { type: String, default: null },
      headerNames: { type: [String], default: [] },
      sealed: { type: Schema.Types.Mixed, default: null },
      deleted: { type: Boolean, default: false },
      disabledAt: { type: Date, default: null },
      updatedAt: Date,
      ...outboxField,
    },
    { versionKey: false, collection: 'providers' },
  );
  schema.index({ accountId: 1, provider: 1 }, { unique: true });
  return schema;
}

const interactionSchema = new Schema<InteractionInfoDoc>(
  {
    _id: String,
    accountId: { type: String, required: true },
    interactionId: String,
    provider: String,
    route: { type: String, default: null },
    requestId: { type: String, default: null },
    createdAt: Date,
  },
  { versionKey: false, collection: 'interactions' },
);
interactionSchema.index({ createdAt: 1 });
interactionSchema.plugin(tenantScoped);

/**
 * The notifier's models. Deliveries live in one collection, open and finished alike (a `state` field
 * with an index; finished ones expire after the retention). Every model is tenant-scoped (every query
 * names the account); the work that spans accounts by nature (the pipeline's recovery and outcome
 * writes, the dispatcher's provider list, the outbox relay) goes through `crossAccount` on the driver.
 */
export interface NotifierModels {
  deliveries: Model<DeliveryDoc>;
  providers: Model<ProviderDoc>;
  interactions: Model<InteractionInfoDoc>;
}

/** Registers (once per connection) and returns the notifier's models. */
export function notifierModels(conn: Connection): NotifierModels {
  const get = <T>(name: string, schema: () => Schema<T>): Model<T> => {
    if (conn.models[name]) return conn.models[name] as Model<T>;
    const s = schema();
    s.plugin(tenantScoped);
    return conn.model<T>(name, s);
  };
  return {
    deliveries: get('Delivery', () => deliverySchema('deliveries')),
    providers: get('Provider', providerSchema),
    interactions: conn.models.InteractionInfo ?? conn.model<InteractionInfoDoc>('InteractionInfo', interactionSchema),
  };
}
