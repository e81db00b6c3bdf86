import type { CloudEvent, Deduper, HandlerContext } from '@cc/bus';
import type { InteractionEventCore, ProviderDeletedData, ProviderNotification, ProviderStateData } from '@cc/contracts';
import type { SecretBox } from '@cc/kit';
import { LRUCache } from 'lru-cache';
import { interactionKeyOf } from '../domain/keys';
import { buildNotification, deliveryIdFor, type NotificationKind, notificationBody } from '../domain/notification';
import { openDeliverySecrets, sealedAad } from '../domain/sealed-secrets';
import type { DeliveryRepository, NewDelivery } from '../store/delivery.repository';
import type { InteractionRepository } from '../store/interaction.repository';
import type { InteractionInfoDoc, ProviderDoc } from '../store/notifier.models';
import type { ProviderRepository } from '../store/provider.repository';
import { GroupCommit } from '../workers/group-commit';

/** The topics the notifier consumes. */
export const consumedTopics = ['cc.provider.v1', 'cc.interaction.v1'];

type AgentFields = { agentId: string | null; agentUsername: string | null };
type QueuedData = InteractionEventCore & { route: string; requestId: string | null };
/** What the notification names, on the events it is sent for (absent on events published before they carried it). */
type NotificationFields = { route?: string; requestId?: string | null };
type AssignedData = InteractionEventCore & AgentFields & NotificationFields;
type ReleasedData = InteractionEventCore &
  AgentFields &
  NotificationFields & { releasedBy: 'agent' | 'api' | 'system'; previousState?: string };
type InteractionInfo = Omit<InteractionInfoDoc, 'createdAt'>;
type Agent = { agentId: string; agentUsername: string };

/** What the handler needs. */
export interface NotifierConsumerDeps {
  deliveries: DeliveryRepository;
  providers: ProviderRepository;
  interactions: InteractionRepository;
  box: SecretBox;
  /** The pipeline: the provider read model in memory, and where new notifications go. */
  pipeline: {
    provider(accountId: string, provider: string): ProviderDoc | undefined;
    /** `eventAt`: the event's time, for the slow-delivery timeline. */
    accept(d: NewDelivery, eventAt: number | null): void;
    providerChanged(p: ProviderDoc, endpointChanged: boolean, reregistered: boolean): void;
    recordedAll(): Promise<void>;
  };
}

/** The consumer's handler and the barrier that makes its records durable before offsets are committed. */
export interface NotifierConsumer {
  handler: (event: CloudEvent, ctx: HandlerContext) => Promise<void>;
  /**
   * The consumer's deduper: no store look-up (the handler is idempotent by key); marking a batch waits
   * until every record of the batch is durable, so the offset commit that follows means "recorded".
   */
  deduper(): Deduper;
  /** Writes what is pending (shutdown). */
  drain(): Promise<void>;
}

/**
 * The consumer. It keeps the provider read model, the facts of queued interactions, and hands one
 * delivery per AssignToAgent or Release (id derived from the event id) to the pipeline, which sends
 * it at once and records it in the next batch. Nothing here waits for the store per event: the
 * records of a fetched batch are written together, and the deduper's mark (which precedes the
 * offset commit) waits for them, so a committed offset always means "recorded" (kill -9 loses
 * nothing; a redelivered event maps to the same delivery id).
 */
export function notifierConsumer(deps: NotifierConsumerDeps): NotifierConsumer {
  // Route and requestId for the notification params, and the agent of the last assignment (for a
  // Release that names none): from memory, the store only after a restart.
  const infos = new LRUCache<string, InteractionInfo>({ max: 100_000 });
  const lastAgent = new LRUCache<string, Agent>({ max: 100_000 });
  const infoWrites = new GroupCommit<InteractionInfo>((items) => deps.interactions.rememberMany(items, new Date()));

  const infoOf = async (accountId: string, key: string): Promise<InteractionInfo | null> =>
    infos.get(key) ?? (await deps.interactions.get(accountId, key));

  const handler = async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    const accountId = event.accountid;
    const now = new Date();
    switch (event.type) {
      case 'provider.registered':
      case 'provider.updated': {
        const data = event.data as ProviderStateData;
        const before = deps.pipeline.provider(accountId, data.provider);
        const reregistered = event.type === 'provider.registered' || data.reason !== 'signing-secret-rotated';
        try {
          openDeliverySecrets(deps.box, data.sealed, sealedAad(accountId, data.provider, data.version));
        } catch (err) {
          // Kept anyway (a key may be added to CC_ENCRYPTION_KEYS); attempts fail until it opens.
          ctx.log.error({ provider: data.provider, reason: (err as Error).message }, 'provider secrets do not open');
        }
        if (await deps.providers.applyState(accountId, data, reregistered, now)) {
          const kept = await deps.providers.get(accountId, data.provider);
          if (kept) deps.pipeline.providerChanged(kept, before?.endpoint !== data.endpoint, reregistered);
          ctx.log.info({ provider: data.provider, version: data.version }, 'provider state kept');
        }
        return;
      }
      case 'provider.deleted': {
        const data = event.data as ProviderDeletedData;
        if (await deps.providers.applyDeleted(accountId, data.provider, data.version, now)) {
          const kept = await deps.providers.get(accountId, data.provider);
          if (kept) deps.pipeline.providerChanged(kept, true, false);
        }
        return;
      }
      case 'interaction.queued': {
        const data = event.data as QueuedData;
        if (!data.provider) return;
        const info: InteractionInfo = {
          _id: interactionKeyOf(accountId, data.interactionId),
          accountId,
          interactionId: data.interactionId,
          provider: data.provider,
          route: data.route ?? null,
          requestId: data.requestId ?? null,
        };
        if (!infos.has(info._id)) infos.set(info._id, info);
        void infoWrites.add(info).catch(() => undefined);
        return;
      }
      case 'interaction.assigned': {
        const data = event.data as AssignedData;
        if (!data.provider || !data.agentId || !data.agentUsername) return;
        const agent = { agentId: data.agentId, agentUsername: data.agentUsername };
        lastAgent.set(interactionKeyOf(accountId, data.interactionId), agent);
        await record(event, 'AssignToAgent', agent, ctx);
        return;
      }
      case 'interaction.released': {
        const data = event.data as ReleasedData;
        if (!data.provider) return;
        // A release while the offer rang (a caller hanging up) names the ringing agent, who was never assigned:
        // that agent gets no Release; the provider hears of it only if an earlier agent had it (a transfer).
        const assigned = data.previousState !== 'offered';
        let agent: Agent | undefined =
          assigned && data.agentId && data.agentUsername
            ? { agentId: data.agentId, agentUsername: data.agentUsername }
            : undefined;
        if (!agent) {
          // Released while no agent had it (e.g. requeued after a transfer): tell the provider only if
          // an agent had been assigned, naming that agent.
          agent = lastAgent.get(interactionKeyOf(accountId, data.interactionId));
          if (!agent) {
            const last = await deps.deliveries.lastAssignment(accountId, data.interactionId);
            const params = last ? (JSON.parse(last.body) as ProviderNotification[])[0]?.params : undefined;
            if (params) agent = { agentId: params.AgentId, agentUsername: params.Agent };
          }
        }
        if (!agent) return;
        await record(event, 'Release', agent, ctx);
        return;
      }
      default:
        return;
    }
  };

  async function record(event: CloudEvent, kind: NotificationKind, agent: Agent, ctx: HandlerContext): Promise<void> {
    const accountId = event.accountid;
    const data = event.data as ReleasedData;
    const provider = data.provider as string;
    const known = deps.pipeline.provider(accountId, provider);
    // Nothing for a provider without endpoint. An unknown provider is recorded anyway: its provider
    // event may simply not be consumed yet (another topic); the pipeline decides at send time.
    if (known && (known.deleted || !known.endpoint)) {
      ctx.log.debug({ provider, kind }, 'provider has no endpoint; no notification');
      return;
    }
    const interactionKey = interactionKeyOf(accountId, data.interactionId);
    const info = await infoOf(accountId, interactionKey);
    const deliveryId = deliveryIdFor(event.id, kind);
    const notification = buildNotification({
      kind,
      deliveryId,
      accountId,
      accountName: accountId,
      interactionId: data.interactionId,
      externalId: data.externalId,
      provider,
      interactionType: data.interactionType,
      agentId: agent.agentId,
      agentUsername: agent.agentUsername,
      // The queued event's facts, else the event's own (an assignment read before its queued event).
      route: info?.route ?? data.route ?? null,
      requestId: info ? info.requestId : (data.requestId ?? null),
      occurredAt: data.occurredAt,
      ...(kind === 'Release' ? { releasedBy: data.releasedBy } : {}),
    });
    deps.pipeline.accept(
      {
        _id: deliveryId,
        accountId,
        provider,
        endpointKey: JSON.stringify([accountId, provider]),
        interactionId: data.interactionId,
        interactionKey,
        notification: kind,
        seq: data.sequence,
        eventId: event.id,
        body: notificationBody(notification),
        traceparent: event.traceparent ?? null,
      },
      eventTime(event),
    );
    ctx.log.debug({ deliveryId, provider, kind }, 'notification accepted');
  }

  const drain = async () => {
    await Promise.all([deps.pipeline.recordedAll(), infoWrites.drain()]);
  };
  return {
    handler,
    drain,
    // Every write of this handler is idempotent by key (delivery id, provider version, interaction
    // key), so redelivered events need no store lookup: the deduper only makes the batch durable.
    deduper: () => ({
      seenMany: async () => new Set<string>(),
      markMany: drain,
    }),
  };
}

/** The event's time (epoch ms); null when it does not parse. */
function eventTime(event: CloudEvent): number | null {
  const t = Date.parse(event.time);
  return Number.isFinite(t) ? t : null;
}
