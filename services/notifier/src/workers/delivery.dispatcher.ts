import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { OutboxRelay } from '@cc/bus';
import { type Logger, type SecretBox, SpanKind, withSpan } from '@cc/kit';
import { EndpointBreakers as Breakers, type EndpointBreakers, type EndpointGate } from '../clients/endpoint-breakers';
import type { ProviderEndpointClient } from '../clients/provider-endpoint.client';
import type { Config } from '../config';
import { parseEndpointKey } from '../domain/keys';
import { blockersOf, type OpenDelivery } from '../domain/ordering';
import { type AttemptResult, decideAfterAttempt } from '../domain/outcome';
import { scheduleSpanMs } from '../domain/schedule';
import { type DeliverySecrets, openDeliverySecrets, providerHeaders, sealedAad } from '../domain/sealed-secrets';
import { signWebhook } from '../domain/signature';
import {
  attemptFailedEvent,
  deadLetteredEvent,
  deliveredEvent,
  deliveryTopic,
  endpointDisabledEvent,
} from '../events/delivery-outcome.events';
import type { ClaimedDelivery, DeliveryOutcome, DeliveryRepository, DueDelivery } from '../store/delivery.repository';
import type { ProviderDoc } from '../store/notifier.models';
import type { ProviderRepository } from '../store/provider.repository';
import type { NotifierMetrics } from './notifier.metrics';

/** What the dispatcher needs. */
export interface DispatcherDeps {
  config: Config;
  deliveries: DeliveryRepository;
  providers: ProviderRepository;
  client: ProviderEndpointClient;
  breakers: EndpointBreakers;
  box: SecretBox;
  relay: OutboxRelay;
  logger: Logger;
  /** The consumer group's dead-letter topic: dead deliveries are recorded there too. */
  deadLetterTopic: string;
  random?: () => number;
}

type Row = Pick<DueDelivery, '_id' | 'interactionKey' | 'seq' | 'notification'>;
const toOpen = (d: Row): OpenDelivery => ({
  id: d._id,
  interactionKey: d.interactionKey,
  seq: d.seq,
  notification: d.notification,
});

/**
 * Sends recorded deliveries. A loop reads due deliveries from the store (never awaiting an HTTP
 * call), applies the ordering rule per interaction, and starts each send as its own task, at most
 * `ENDPOINT_CONCURRENCY` per endpoint and `MAX_IN_FLIGHT` in all; endpoints at their limit are left
 * out of the next read, so a hanging provider never takes the places of others. Each send claims its
 * delivery first (a lease: crash-safe and exclusive across instances), then records the attempt,
 * the new state and the outcome events in one write.
 */
export class DeliveryDispatcher {
  /** Identifies this instance's claims. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  metrics?: NotifierMetrics;
  private readonly perEndpoint = new Map<string, number>();
  private readonly processing = new Set<string>();
  /** Deliveries whose task failed unexpectedly (e.g. the store is down): left alone for a while. */
  private readonly cooldown = new Map<string, number>();
  private readonly tasks = new Set<Promise<void>>();
  private readonly secrets = new Map<string, DeliverySecrets>();
  private readonly disabled = new Set<string>();
  private readonly log: Logger;
  private readonly spanMs: number;
  private running = false;
  private loopDone?: Promise<void>;
  private wakeUp?: () => void;
  private woken = false;
  private sending = 0;
  private lastSweep = 0;

  constructor(private readonly deps: DispatcherDeps) {
    this.log = deps.logger.child({ component: 'dispatcher' });
    this.spanMs = scheduleSpanMs(deps.config.schedule);
  }

  /** Starts the dispatch loop. */
  start(): void {
    this.running = true;
    this.loopDone = this.loop();
  }

  /** Asks for a pass now (a delivery was recorded, a send finished). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Stops reading new work and waits for the sends in flight (bounded by the attempt timeout). */
  async stop(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loopDone;
    await Promise.allSettled([...this.tasks]);
  }

  /** POSTs in flight in this instance. */
  inFlight(): number {
    return this.sending;
  }

  /** Whether an endpoint is known disabled (410) in this instance. */
  isDisabled(key: string): boolean {
    return this.disabled.has(key);
  }

  /** A provider changed (registered again, rotated, deleted): drop cached secrets and its breaker. */
  providerChanged(key: string, endpointChanged: boolean, reregistered: boolean): void {
    for (const k of this.secrets.keys()) if (k.startsWith(`${key}@`)) this.secrets.delete(k);
    if (reregistered) this.disabled.delete(key);
    if (endpointChanged || reregistered) this.deps.breakers.reset(key);
    this.wake();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let busy = false;
      try {
        busy = await this.pass();
      } catch (err) {
        this.log.warn({ err: (err as Error).message }, 'dispatch pass failed; retrying');
      }
      if (!busy && this.running) await this.sleep(this.deps.config.DISPATCH_INTERVAL_MS);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeUp = done;
    });
  }

  /** One pass: returns true when it started or rescheduled work (another pass follows at once). */
  private async pass(): Promise<boolean> {
    const { config, deliveries, providers, breakers } = this.deps;
    const free = config.MAX_IN_FLIGHT - this.sending;
    if (free <= 0) return false;
    const now = new Date();
    const nowMs = now.getTime();
    const exclude = new Set<string>();
    for (const [key, n] of this.perEndpoint) if (n >= config.ENDPOINT_CONCURRENCY) exclude.add(key);
    for (const gate of breakers.all()) if (gate.breaker.halfOpen && gate.trialInFlight) exclude.add(gate.key);
    for (const [id, until] of this.cooldown) if (until <= nowMs) this.cooldown.delete(id);
    if (nowMs - this.lastSweep > 10_000) {
      this.lastSweep = nowMs;
      await deliveries.sweepFinished();
    }
    // One scan of the open deliveries gives both the due ones and the ordering rule's input.
    const open = await deliveries.findOpen();
    const due = open
      .filter(
        (d) =>
          d.nextAttemptAt !== null &&
          new Date(d.nextAttemptAt).getTime() <= nowMs &&
          !exclude.has(d.endpointKey) &&
          !this.processing.has(d._id) &&
          !this.cooldown.has(d._id),
      )
      .sort((a, b) => new Date(a.nextAttemptAt as Date).getTime() - new Date(b.nextAttemptAt as Date).getTime())
      .slice(0, config.DISPATCH_BATCH);
    if (due.length === 0) return false;

    // Ordering per interaction: hold what must wait for an earlier open delivery of its interaction.
    const openById = new Map(open.map((o) => [o._id, o]));
    const blocked = blockersOf(due.map(toOpen), open.map(toOpen));
    const holds: Promise<void>[] = [];
    const ready: DueDelivery[] = [];
    for (const d of due) {
      const blocker = blocked.get(d._id);
      if (!blocker) {
        ready.push(d);
        continue;
      }
      const blockerNext = openById.get(blocker.id)?.nextAttemptAt;
      const base = Math.max(nowMs, blockerNext ? new Date(blockerNext).getTime() : nowMs);
      holds.push(deliveries.hold(d, blocker.id, new Date(base + config.ORDER_RECHECK_MS)));
    }
    await Promise.all(holds);

    const byEndpoint = new Map<string, DueDelivery[]>();
    for (const d of ready) byEndpoint.set(d.endpointKey, [...(byEndpoint.get(d.endpointKey) ?? []), d]);
    const found = await providers.findMany([...byEndpoint.keys()].map(parseEndpointKey));
    const providerByKey = new Map(found.map((p) => [JSON.stringify([p.accountId, p.provider]), p]));

    let started = 0;
    let changed = holds.length;
    for (const [key, list] of byEndpoint) {
      const provider = providerByKey.get(key);
      const refusal = refusalOf(provider);
      if (refusal) {
        for (const d of list) this.spawn(d, key, false, () => this.finishWithoutSend(d, refusal.reason, refusal.final));
        changed += list.length;
        continue;
      }
      const p = provider as ProviderDoc & { endpoint: string };
      const gate = breakers.gate(key, p.endpoint);
      const state = Breakers.state(gate);
      if (state === 'open') {
        changed += await this.postponeWhileOpen(gate, list, nowMs);
        continue;
      }
      let slots =
        state === 'halfOpen'
          ? gate.trialInFlight
            ? 0
            : 1
          : config.ENDPOINT_CONCURRENCY - (this.perEndpoint.get(key) ?? 0);
      slots = Math.min(slots, free - started);
      for (const d of list.slice(0, Math.max(0, slots))) {
        this.spawn(d, key, true, () => this.send(d, p, gate));
        started++;
      }
    }
    return started > 0 || changed > 0;
  }

  /** While a breaker is open: deliveries wait for its half-open moment, or die when their window ended. */
  private async postponeWhileOpen(gate: EndpointGate, list: DueDelivery[], nowMs: number): Promise<number> {
    const { config, deliveries } = this.deps;
    const random = this.deps.random ?? Math.random;
    const expired = list.filter((d) => new Date(d.cycleStartedAt).getTime() + this.spanMs <= nowMs);
    for (const d of expired) {
      this.spawn(d, gate.key, false, () =>
        this.finishWithoutSend(d, 'circuit breaker open until the delivery window ended', true),
      );
    }
    const waiting = list.filter((d) => !expired.includes(d));
    // Spread the wake-ups a little; only one trial passes in half-open anyway.
    const at = Breakers.retryAt(gate, config.BREAKER_RESET_MS) + Math.round(random() * 0.1 * config.BREAKER_RESET_MS);
    await deliveries.postpone(
      waiting.map((d) => d._id),
      new Date(nowMs),
      new Date(at),
    );
    this.metrics?.attempts.inc({ outcome: 'rejected' }, waiting.length);
    return list.length;
  }

  private spawn(d: DueDelivery, key: string, sends: boolean, work: () => Promise<void>): void {
    this.processing.add(d._id);
    if (sends) {
      this.perEndpoint.set(key, (this.perEndpoint.get(key) ?? 0) + 1);
      this.sending++;
    }
    let failed = false;
    const task = work()
      .catch((err) => {
        failed = true;
        this.cooldown.set(d._id, Date.now() + 5000);
        this.log.error({ err, deliveryId: d._id }, 'delivery task failed; retried later');
      })
      .finally(() => {
        this.processing.delete(d._id);
        if (sends) {
          const left = (this.perEndpoint.get(key) ?? 1) - 1;
          if (left > 0) this.perEndpoint.set(key, left);
          else this.perEndpoint.delete(key);
          this.sending--;
        }
        this.tasks.delete(task);
        if (!failed) this.wake();
      });
    this.tasks.add(task);
  }

  private secretsOf(p: ProviderDoc): DeliverySecrets {
    const key = `${JSON.stringify([p.accountId, p.provider])}@${p.version}`;
    let s = this.secrets.get(key);
    if (!s) {
      s = p.sealed
        ? openDeliverySecrets(this.deps.box, p.sealed, sealedAad(p.accountId, p.provider, p.version))
        : { headers: [], signingSecrets: [] };
      if (this.secrets.size > 10_000) this.secrets.clear();
      this.secrets.set(key, s);
    }
    return s;
  }

  /** Claims, signs and POSTs one delivery through its endpoint's breaker, then records the outcome. */
  private async send(d: DueDelivery, p: ProviderDoc & { endpoint: string }, gate: EndpointGate): Promise<void> {
    const { deliveries, config, breakers, client } = this.deps;
    const claimedAt = Date.now();
    const claimed = await deliveries.claim(d, new Date(claimedAt), new Date(claimedAt + config.leaseMs), this.owner);
    if (!claimed) return;
    const attemptNo = claimed.attemptCount + 1;
    let secrets: DeliverySecrets;
    try {
      secrets = this.secretsOf(p);
    } catch (err) {
      await this.recordOutcome(
        claimed,
        { kind: 'error', error: (err as Error).message, latencyMs: 0 },
        attemptNo,
        p,
        claimedAt,
      );
      return;
    }
    const startedAt = Date.now();
    const signature = signWebhook(claimed._id, claimed.body, secrets.signingSecrets, startedAt) ?? {
      'webhook-id': claimed._id,
      'webhook-timestamp': String(Math.floor(startedAt / 1000)),
    };
    const headers: Record<string, string> = {
      ...providerHeaders(secrets),
      ...signature,
      'x-request-id': `${claimed._id}:${attemptNo}`,
      ...(claimed.traceparent ? { traceparent: claimed.traceparent } : {}),
    };
    // A client span for the POST, in the trace of the event that caused the notification.
    const out = await breakers.send(gate, () =>
      withSpan(
        'notifier',
        'POST provider endpoint',
        { kind: SpanKind.CLIENT, parent: claimed.traceparent, attributes: { 'cc.provider': claimed.provider } },
        async (traceparent, span) => {
          const result = await client.post({
            url: p.endpoint,
            body: claimed.body,
            headers: { ...headers, traceparent },
          });
          if (result.kind === 'response') span.setAttribute('http.response.status_code', result.status);
          return result;
        },
      ),
    );
    if (!out.sent) {
      // The breaker opened (or a half-open trial is running) since the pass looked: no attempt was made.
      await deliveries.unclaim(claimed, new Date(Breakers.retryAt(gate, config.BREAKER_RESET_MS)));
      this.metrics?.attempts.inc({ outcome: 'rejected' });
      return;
    }
    await this.recordOutcome(claimed, out.result, attemptNo, p, startedAt);
  }

  /** Records an attempt's outcome with its events, publishes them, and lets held successors go. */
  private async recordOutcome(
    claimed: ClaimedDelivery,
    result: AttemptResult,
    attemptNo: number,
    p: ProviderDoc | undefined,
    startedAt: number,
  ): Promise<void> {
    const { config } = this.deps;
    const now = new Date();
    const decision = decideAfterAttempt(result, attemptNo, config.schedule, now.getTime(), this.deps.random);
    const outcome: DeliveryOutcome = {
      state: decision.state,
      nextAttemptAt: decision.nextAttemptAt === null ? null : new Date(decision.nextAttemptAt),
      status: decision.status,
      error: decision.error,
      attempt: { at: new Date(startedAt), status: decision.status, latencyMs: result.latencyMs, error: decision.error },
      events: [],
    };
    if (decision.state === 'delivered') {
      outcome.events.push({
        topic: deliveryTopic,
        events: [deliveredEvent(claimed, attemptNo, decision.status as number, result.latencyMs, now)],
      });
    } else if (decision.state === 'failed') {
      outcome.events.push({
        topic: deliveryTopic,
        events: [
          attemptFailedEvent(claimed, attemptNo, decision.status, decision.error, outcome.nextAttemptAt as Date, now),
        ],
      });
    } else {
      outcome.events.push(...this.deadEvents(claimed, attemptNo, decision.status, decision.error, now));
    }
    // A 410 disables the endpoint before the delivery is recorded dead: whoever sees the dead delivery
    // also sees the disabled endpoint, and a crash in between retries the delivery, not the reverse.
    if (decision.disableEndpoint && p) await this.disableEndpoint(p, 1);
    await this.finish(claimed, outcome, now);

    const log = this.log.child({
      deliveryId: claimed._id,
      provider: claimed.provider,
      notification: claimed.notification,
      attempt: attemptNo,
    });
    const seconds = result.latencyMs / 1000;
    this.metrics?.attempts.inc({ outcome: decision.state });
    this.metrics?.attemptSeconds.observe({ outcome: decision.state }, seconds);
    if (decision.state === 'delivered') {
      this.metrics?.endToEndSeconds.observe({}, (now.getTime() - new Date(claimed.createdAt).getTime()) / 1000);
      log.info({ status: decision.status, latencyMs: result.latencyMs }, 'notification delivered');
    } else if (decision.state === 'failed') {
      log.warn(
        { status: decision.status, error: decision.error, nextAttemptAt: outcome.nextAttemptAt },
        'notification attempt failed; will retry',
      );
    } else {
      log.error({ status: decision.status, error: decision.error }, 'notification dead');
    }
  }

  /** A delivery refused without an HTTP call: dead at once (`final`), or a failed attempt retried on the schedule. */
  private async finishWithoutSend(d: DueDelivery, reason: string, final: boolean): Promise<void> {
    const now = Date.now();
    const claimed = await this.deps.deliveries.claim(
      d,
      new Date(now),
      new Date(now + this.deps.config.leaseMs),
      this.owner,
    );
    if (!claimed) return;
    if (!final) {
      await this.recordOutcome(
        claimed,
        { kind: 'error', error: reason, latencyMs: 0 },
        claimed.attemptCount + 1,
        undefined,
        now,
      );
      return;
    }
    const at = new Date();
    await this.finish(
      claimed,
      {
        state: 'dead',
        nextAttemptAt: null,
        status: null,
        error: reason,
        events: this.deadEvents(claimed, Math.max(1, claimed.attemptCount), null, reason, at),
      },
      at,
    );
    this.metrics?.attempts.inc({ outcome: 'dead' });
    this.log.warn(
      { deliveryId: claimed._id, provider: claimed.provider, reason },
      'notification dead without an attempt',
    );
  }

  private deadEvents(claimed: ClaimedDelivery, attempt: number, status: number | null, error: string | null, at: Date) {
    return [
      { topic: deliveryTopic, events: [deadLetteredEvent(claimed, attempt, status, error, at)] },
      // The same record on the consumer group's dead-letter topic (its own event id).
      { topic: this.deps.deadLetterTopic, events: [deadLetteredEvent(claimed, attempt, status, error, at)] },
    ];
  }

  private async finish(claimed: ClaimedDelivery, outcome: DeliveryOutcome, now: Date): Promise<void> {
    const { deliveries, relay } = this.deps;
    const { held, holding } = await deliveries.complete(claimed, outcome, now);
    const finished = outcome.state === 'delivered' || outcome.state === 'dead';
    if (held && finished && holding.length) {
      if ((await deliveries.release(holding, now)) > 0) this.wake();
    }
    await relay.flushSoon(deliveries.queue, claimed._id);
    if (held && finished) await deliveries.archive(claimed._id);
  }

  /**
   * 410 Gone: the endpoint is disabled until the provider is registered again; announced once, with the
   * count of deliveries left undelivered (less `finishing`: the ones about to be recorded dead).
   */
  private async disableEndpoint(p: ProviderDoc, finishing = 0): Promise<void> {
    const { deliveries, providers, relay, breakers } = this.deps;
    const key = JSON.stringify([p.accountId, p.provider]);
    this.disabled.add(key);
    breakers.reset(key);
    const now = new Date();
    const pending = Math.max(0, (await deliveries.countOpen(p.accountId, p.provider)) - finishing);
    const id = await providers.disable(
      { accountId: p.accountId, provider: p.provider },
      p.version,
      endpointDisabledEvent(p.accountId, p.provider, pending, now),
      now,
    );
    if (id !== undefined) {
      await relay.flushSoon(providers.system, id);
      this.log.warn({ provider: p.provider, accountId: p.accountId, pending }, 'endpoint answered 410 Gone; disabled');
    }
  }
}

/** Why a delivery cannot be sent to its provider now, and whether that is final. */
function refusalOf(p: ProviderDoc | undefined): { reason: string; final: boolean } | undefined {
  if (!p) return { reason: 'provider is not known to the notifier yet (no provider event consumed)', final: false };
  if (p.deleted) return { reason: 'provider was deleted', final: true };
  if (!p.endpoint) return { reason: 'provider has no endpoint', final: true };
  if (p.disabledAt) {
    return {
      reason: 'endpoint disabled: it answered 410 Gone; register the provider again to re-enable it',
      final: true,
    };
  }
  return undefined;
}
