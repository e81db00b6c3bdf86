import type { CloudEvent, HandlerContext } from '@cc/bus';
import type { InteractionEventCore, ProviderDeletedData, ProviderNotification, ProviderStateData } from '@cc/contracts';
import type { SecretBox } from '@cc/kit';
import { endpointKeyOf, interactionKeyOf } from '../domain/keys';
import { buildNotification, deliveryIdFor, type NotificationKind, notificationBody } from '../domain/notification';
import { openDeliverySecrets, sealedAad } from '../domain/sealed-secrets';
import type { DeliveryRepository } from '../store/delivery.repository';
import type { InteractionRepository } from '../store/interaction.repository';
import type { ProviderRepository } from '../store/provider.repository';

/** The topics the notifier consumes. */
export const consumedTopics = ['cc.provider.v1', 'cc.interaction.v1'];

type AgentFields = { agentId: string | null; agentUsername: string | null };
type QueuedData = InteractionEventCore & { route: string; requestId: string | null };
type AssignedData = InteractionEventCore & AgentFields;
type ReleasedData = InteractionEventCore & AgentFields & { releasedBy: 'agent' | 'api' | 'system' };

/** What the handler needs. */
export interface NotifierConsumerDeps {
  deliveries: DeliveryRepository;
  providers: ProviderRepository;
  interactions: InteractionRepository;
  box: SecretBox;
  /** Told when a delivery was recorded (wake the dispatcher). */
  onRecorded: () => void;
  /** Told when a provider's state changed (drop cached secrets, reset its breaker). */
  onProviderChanged: (key: string, endpointChanged: boolean, reregistered: boolean) => void;
}

/**
 * The consumer handler. It only records: the provider read model, the facts of queued interactions,
 * and one delivery per AssignToAgent or Release (id derived from the event id, upserted, so a
 * redelivered event changes nothing). Sending is the dispatcher's job, so the offset is committed as
 * soon as the notification is safely stored.
 */
export function notifierHandler(deps: NotifierConsumerDeps) {
  return async (event: CloudEvent, ctx: HandlerContext): Promise<void> => {
    const accountId = event.accountid;
    const now = new Date();
    switch (event.type) {
      case 'provider.registered':
      case 'provider.updated': {
        const data = event.data as ProviderStateData;
        const before = await deps.providers.get(accountId, data.provider);
        const reregistered = event.type === 'provider.registered' || data.reason !== 'signing-secret-rotated';
        try {
          openDeliverySecrets(deps.box, data.sealed, sealedAad(accountId, data.provider, data.version));
        } catch (err) {
          // Kept anyway (a key may be added to CC_ENCRYPTION_KEYS); attempts fail until it opens.
          ctx.log.error({ provider: data.provider, reason: (err as Error).message }, 'provider secrets do not open');
        }
        if (await deps.providers.applyState(accountId, data, reregistered, now)) {
          deps.onProviderChanged(
            endpointKeyOf(accountId, data.provider),
            before?.endpoint !== data.endpoint,
            reregistered,
          );
          ctx.log.info({ provider: data.provider, version: data.version }, 'provider state kept');
        }
        return;
      }
      case 'provider.deleted': {
        const data = event.data as ProviderDeletedData;
        if (await deps.providers.applyDeleted(accountId, data.provider, data.version, now)) {
          deps.onProviderChanged(endpointKeyOf(accountId, data.provider), true, false);
        }
        return;
      }
      case 'interaction.queued': {
        const data = event.data as QueuedData;
        if (!data.provider) return;
        await deps.interactions.remember(
          {
            _id: interactionKeyOf(accountId, data.interactionId),
            accountId,
            interactionId: data.interactionId,
            provider: data.provider,
            route: data.route ?? null,
            requestId: data.requestId ?? null,
          },
          now,
        );
        return;
      }
      case 'interaction.assigned': {
        const data = event.data as AssignedData;
        if (!data.provider || !data.agentId || !data.agentUsername) return;
        await record(deps, event, 'AssignToAgent', { agentId: data.agentId, agentUsername: data.agentUsername }, ctx);
        return;
      }
      case 'interaction.released': {
        const data = event.data as ReleasedData;
        if (!data.provider) return;
        let agent =
          data.agentId && data.agentUsername ? { agentId: data.agentId, agentUsername: data.agentUsername } : undefined;
        if (!agent) {
          // Released while no agent had it (e.g. requeued after a transfer): tell the provider only if
          // an agent had been assigned, naming that agent.
          const last = await deps.deliveries.lastAssignment(accountId, data.interactionId);
          const params = last ? (JSON.parse(last.body) as ProviderNotification[])[0]?.params : undefined;
          if (params) agent = { agentId: params.AgentId, agentUsername: params.Agent };
        }
        if (!agent) return;
        await record(deps, event, 'Release', agent, ctx);
        return;
      }
      default:
        return;
    }
  };
}

async function record(
  deps: NotifierConsumerDeps,
  event: CloudEvent,
  kind: NotificationKind,
  agent: { agentId: string; agentUsername: string },
  ctx: HandlerContext,
): Promise<void> {
  const accountId = event.accountid;
  const data = event.data as ReleasedData;
  const provider = data.provider as string;
  const known = await deps.providers.get(accountId, provider);
  // Nothing for a provider without endpoint. An unknown provider is recorded anyway: its provider
  // event may simply not be consumed yet (another topic); the dispatcher decides at send time.
  if (known && (known.deleted || !known.endpoint)) {
    ctx.log.debug({ provider, kind }, 'provider has no endpoint; no notification');
    return;
  }
  const info = await deps.interactions.get(accountId, interactionKeyOf(accountId, data.interactionId));
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
    route: info?.route ?? null,
    requestId: info?.requestId ?? null,
    occurredAt: data.occurredAt,
    ...(kind === 'Release' ? { releasedBy: data.releasedBy } : {}),
  });
  const created = await deps.deliveries.record(
    {
      _id: deliveryId,
      accountId,
      provider,
      endpointKey: endpointKeyOf(accountId, provider),
      interactionId: data.interactionId,
      interactionKey: interactionKeyOf(accountId, data.interactionId),
      notification: kind,
      seq: data.sequence,
      eventId: event.id,
      body: notificationBody(notification),
      traceparent: event.traceparent ?? null,
    },
    new Date(),
  );
  if (created) {
    ctx.log.info({ deliveryId, provider, kind }, 'notification recorded');
    deps.onRecorded();
  }
}
