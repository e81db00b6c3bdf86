import type { CloudEvent, EagerPublisher, EventProducer } from '@cc/bus';
import { outboxEntries } from '@cc/bus';
import { type Logger, type SecretBox, SpanKind, withSpan } from '@cc/kit';
import { LRUCache } from 'lru-cache';
import { EndpointBreakers as Breakers, type EndpointBreakers, type EndpointGate } from '../clients/endpoint-breakers';
import type { ProviderEndpointClient } from '../clients/provider-endpoint.client';
import type { Config } from '../config';
import { admitToChain, leaveChain, planBreakerWait, refusalOf, sendStep } from '../domain/lane-plan';
import { compareDeliveries } from '../domain/ordering';
import { type AttemptResult, decideAfterAttempt } from '../domain/outcome';
import { scheduleSpanMs } from '../domain/schedule';
import { type DeliverySecrets, openDeliverySecrets, providerHeaders, sealedAad } from '../domain/sealed-secrets';
import { signWebhook } from '../domain/signature';
import { isSlow, type Timeline, timelineView } from '../domain/timeline';
import {
  attemptFailedEvent,
  deadLetteredEvent,
  deliveredEvent,
  deliveryTopic,
  endpointDisabledEvent,
} from '../events/delivery-outcome.events';
import {
  DeliveryRepository,
  type NewDelivery,
  type OpenDeliveryDoc,
  type OutcomeWrite,
} from '../store/delivery.repository';
import type { AttemptRecord, DeliveryDoc, ProviderDoc } from '../store/notifier.models';
import type { ProviderRepository } from '../store/provider.repository';
import { GroupCommit } from './group-commit';
import type { NotifierMetrics } from './notifier.metrics';

/** What the pipeline needs. */
export interface PipelineDeps {
  config: Config;
  /** This instance's name on the deliveries it holds (stable across restarts of the same instance). */
  owner: string;
  deliveries: DeliveryRepository;
  providers: ProviderRepository;
  client: ProviderEndpointClient;
  breakers: EndpointBreakers;
  box: SecretBox;
  producer: EventProducer;
  /** Publishes what a write staged in an outbox (the relay retries what it cannot). */
  publisher: EagerPublisher;
  logger: Logger;
  random?: () => number;
}

/** An open delivery held in memory. */
interface Live {
  id: string;
  accountId: string;
  provider: string;
  endpointKey: string;
  interactionId: string;
  interactionKey: string;
  notification: DeliveryDoc['notification'];
  seq: number;
  body: string;
  traceparent: string | null;
  createdAt: number;
  cycleStartedAt: number;
  attemptCount: number;
  /** The store version this instance's next outcome write is conditional on (-1: not ours to write). */
  version: number;
  state: 'pending' | 'failed';
  nextAttemptAt: number;
  /** Resolves when the record is durable (true) or turned out to exist already (false). */
  recorded: Promise<boolean>;
  timer?: NodeJS.Timeout;
  sending: boolean;
  /** In its endpoint lane's `ready` queue (a flag, so joining a long queue does not search it). */
  inLane: boolean;
  /** Where its time went (memory only): logged when it finished slowly. */
  timeline: Timeline;
}

/** One endpoint's queue: deliveries due now, in order, and its POSTs in flight. */
interface Lane {
  key: string;
  ready: Live[];
  inFlight: number;
  /** A pump is running (breaker events fire synchronously inside it): a nested call asks for another round. */
  pumping: boolean;
  again: boolean;
  /**
   * While its breaker is open (or its half-open trial runs): which open period the queue was planned for and how
   * many of `ready` (from the front) are planned, so a delivery joining the waiting queue plans only itself.
   */
  breakerPlan?: { period: string; upTo: number };
}

interface PendingOutcome {
  write: OutcomeWrite;
  events: { topic: string; event: CloudEvent }[];
}

const interruptedError =
  'interrupted: the notifier stopped before recording an outcome (an attempt may have been in progress)';

/**
 * The delivery pipeline. Consumed notifications go straight into memory: per interaction a chain
 * (only its earliest open delivery may be sent), per endpoint a lane (a queue of due deliveries with
 * at most `ENDPOINT_CONCURRENCY` POSTs in flight, behind its own opossum breaker). Nothing polls:
 * work starts when a delivery arrives, a POST finishes, a retry timer fires or a breaker half-opens.
 * The store is the durable truth, written twice per delivery and batched across deliveries: the
 * record (by the consumer, before its offset is committed) and the outcome. Retries are timers in
 * memory; `nextAttemptAt`, `owner` and `leaseUntil` let a restarted or another instance recover the
 * open deliveries after a crash. A hanging endpoint holds only its own lane.
 */
export class DeliveryPipeline {
  metrics?: NotifierMetrics;
  private readonly live = new Map<string, Live>();
  private readonly chains = new Map<string, Live[]>();
  private readonly lanes = new Map<string, Lane>();
  /** Lanes with due work that the instance-wide limit held back. */
  private readonly starved = new Set<Lane>();
  private readonly providerCache = new Map<string, ProviderDoc>();
  /** Opened secrets per provider version (an AES-GCM open per send avoided); the least recently used go first. */
  private readonly secrets = new LRUCache<string, DeliverySecrets>({ max: 10_000 });
  private readonly tasks = new Set<Promise<void>>();
  private readonly records: GroupCommit<{ doc: DeliveryDoc; live: Live; settle: (isNew: boolean) => void }>;
  private readonly outcomes: GroupCommit<PendingOutcome>;
  private readonly log: Logger;
  private readonly spanMs: number;
  private sending = 0;
  private running = false;
  private sweepTimer?: NodeJS.Timeout;
  private renewTimer?: NodeJS.Timeout;

  constructor(private readonly deps: PipelineDeps) {
    this.log = deps.logger.child({ component: 'pipeline' });
    this.spanMs = scheduleSpanMs(deps.config.schedule);
    this.records = new GroupCommit(
      async (items) => {
        const existing = await deps.deliveries.recordMany(items.map((i) => i.doc));
        for (const i of items) i.settle(!existing.has(i.doc._id));
      },
      (err, attempt) => this.log.warn({ err: err.message, attempt }, 'recording deliveries failed; retrying'),
    );
    this.outcomes = new GroupCommit(
      (items) => this.writeOutcomes(items),
      (err, attempt) => this.log.warn({ err: err.message, attempt }, 'recording outcomes failed; retrying'),
    );
  }

  /** Loads the providers and takes over the open deliveries this instance (or a stopped one) left. */
  async start(): Promise<void> {
    this.running = true;
    for (const p of await this.deps.providers.all()) this.providerCache.set(keyOf(p), p);
    await this.takeOver(true);
    const sweepMs = this.deps.config.SWEEP_INTERVAL_MS;
    const sweep = () => {
      this.sweepTimer = setTimeout(() => {
        this.sweep()
          .catch((err) => this.log.warn({ err: (err as Error).message }, 'safety sweep failed'))
          .finally(() => {
            if (this.running) sweep();
          });
      }, sweepMs);
    };
    sweep();
    const renewMs = Math.min(sweepMs, Math.floor(this.deps.config.leaseMs / 3));
    const renew = () => {
      this.renewTimer = setTimeout(() => {
        const run = this.live.size
          ? this.deps.deliveries.renewLeases(this.deps.owner, new Date(Date.now() + this.deps.config.leaseMs))
          : Promise.resolve();
        run
          .catch((err) => this.log.warn({ err: (err as Error).message }, 'lease renewal failed'))
          .finally(() => {
            if (this.running) renew();
          });
      }, renewMs);
    };
    renew();
  }

  /** Stops: no new sends; waits for the POSTs in flight and their outcome writes (bounded by the attempt timeout). */
  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.sweepTimer);
    clearTimeout(this.renewTimer);
    for (const d of this.live.values()) clearTimeout(d.timer);
    await Promise.allSettled([...this.tasks]);
    await this.records.drain().catch(() => undefined);
    await this.outcomes.drain().catch(() => undefined);
    this.records.stop();
    this.outcomes.stop();
  }

  /** Resolves when every delivery accepted so far is durably recorded (before the consumer commits). */
  recordedAll(): Promise<void> {
    return this.records.drain();
  }

  /** The provider as this instance knows it. */
  provider(accountId: string, provider: string): ProviderDoc | undefined {
    return this.providerCache.get(JSON.stringify([accountId, provider]));
  }

  /** Whether a delivery is open in this instance's memory. */
  has(id: string): boolean {
    return this.live.has(id);
  }

  /** The in-memory view of an open delivery (the admin API shows its current next attempt). */
  view(id: string): { state: 'pending' | 'failed'; nextAttemptAt: Date; sending: boolean } | undefined {
    const d = this.live.get(id);
    return d && { state: d.state, nextAttemptAt: new Date(d.nextAttemptAt), sending: d.sending };
  }

  /** Open deliveries of an endpoint in this instance. */
  openCount(endpointKey: string): number {
    let n = 0;
    for (const d of this.live.values()) if (d.endpointKey === endpointKey) n++;
    return n;
  }

  /** POSTs in flight in this instance. */
  inFlight(): number {
    return this.sending;
  }

  /**
   * Accepts a new notification from the consumer: recorded in the next batch, and queued for sending
   * at once (its outcome is written only after its record is durable). A redelivered event whose
   * delivery is still open here changes nothing.
   */
  accept(d: NewDelivery, eventAt: number | null = null): void {
    if (this.live.has(d._id)) return;
    const now = new Date();
    const doc = DeliveryRepository.newDoc(d, now, this.deps.owner, new Date(now.getTime() + this.deps.config.leaseMs));
    let settle: (isNew: boolean) => void = () => undefined;
    const recorded = new Promise<boolean>((r) => {
      settle = r;
    });
    const live = toLive(doc, recorded);
    live.timeline.eventAt = eventAt;
    this.records.add({ doc, live, settle }).catch(() => settle(false));
    void recorded.then((isNew) => {
      live.timeline.recordedAt = Date.now();
      // The delivery existed already (a redelivered event): whoever holds it sends it; this copy stops.
      if (!isNew) live.version = -1;
    });
    this.admit(live);
  }

  /** A provider changed (registered again, rotated, deleted): refresh it, drop cached secrets, reset its breaker. */
  providerChanged(p: ProviderDoc, endpointChanged: boolean, reregistered: boolean): void {
    const key = keyOf(p);
    this.providerCache.set(key, p);
    for (const k of [...this.secrets.keys()]) if (k.startsWith(`${key}@`)) this.secrets.delete(k);
    if (endpointChanged || reregistered) this.deps.breakers.reset(key);
    const lane = this.lanes.get(key);
    if (lane) this.pump(lane);
  }

  /** Replayed deliveries (admin API): held in memory again with a fresh attempt cycle. */
  adopt(docs: DeliveryDoc[]): void {
    for (const doc of docs) {
      const existing = this.live.get(doc._id);
      if (existing) {
        existing.version = doc.version;
        existing.attemptCount = 0;
        existing.cycleStartedAt = new Date(doc.cycleStartedAt).getTime();
        existing.state = 'pending';
        if (!existing.sending && existing.timer) {
          clearTimeout(existing.timer);
          existing.timer = undefined;
          this.enqueue(existing);
        }
        continue;
      }
      this.admit(toLive(doc, Promise.resolve(true)));
    }
  }

  // ---- in-memory flow ----

  private admit(d: Live): void {
    this.live.set(d.id, d);
    const plan = admitToChain(this.chains.get(d.interactionKey) ?? [], d, compareDeliveries2);
    this.chains.set(d.interactionKey, plan.chain);
    if (plan.unqueue) this.unqueue(plan.unqueue);
    if (plan.schedule) this.schedule(plan.schedule);
  }

  /** Queues a chain head at its due time (a timer for a retry, at once when due). */
  private schedule(d: Live): void {
    if (!this.running) return;
    const delay = d.nextAttemptAt - Date.now();
    if (delay <= 0) {
      this.enqueue(d);
      return;
    }
    clearTimeout(d.timer);
    d.timer = setTimeout(
      () => {
        d.timer = undefined;
        this.enqueue(d);
      },
      Math.min(delay, 2 ** 31 - 1),
    );
  }

  private unqueue(d: Live): void {
    clearTimeout(d.timer);
    d.timer = undefined;
    const lane = this.lanes.get(d.endpointKey);
    if (lane && d.inLane) {
      d.inLane = false;
      lane.ready = lane.ready.filter((x) => x !== d);
      lane.breakerPlan = undefined;
    }
  }

  private enqueue(d: Live): void {
    if (!this.running || !this.live.has(d.id)) return;
    let lane = this.lanes.get(d.endpointKey);
    if (!lane) {
      lane = { key: d.endpointKey, ready: [], inFlight: 0, pumping: false, again: false };
      this.lanes.set(d.endpointKey, lane);
    }
    if (!d.inLane) {
      d.inLane = true;
      lane.ready.push(d);
      d.timeline.queuedAt = Date.now();
    }
    this.pump(lane);
  }

  /** Starts what the lane may send now. Synchronous up to each `breaker.fire`, so the half-open trial is one. */
  private pump(lane: Lane): void {
    if (!this.running) return;
    if (lane.pumping) {
      lane.again = true;
      return;
    }
    lane.pumping = true;
    try {
      do {
        lane.again = false;
        this.pumpOnce(lane);
      } while (lane.again);
    } finally {
      lane.pumping = false;
    }
  }

  private pumpOnce(lane: Lane): void {
    const { config, breakers } = this.deps;
    while (lane.ready.length) {
      const provider = this.providerCache.get(lane.key);
      const refusal = refusalOf(provider);
      if (refusal) {
        const d = this.takeHead(lane);
        this.track(this.finishWithoutSend(d, refusal.reason, refusal.final));
        continue;
      }
      const p = provider as ProviderDoc & { endpoint: string };
      const gate = breakers.gate(lane.key, p.endpoint);
      const step = sendStep({
        breakerAdmits: Breakers.admits(gate),
        laneInFlight: lane.inFlight,
        endpointConcurrency: config.ENDPOINT_CONCURRENCY,
        instanceInFlight: this.sending,
        maxInFlight: config.MAX_IN_FLIGHT,
      });
      if (step === 'wait-breaker') {
        this.waitForBreaker(lane, gate);
        return;
      }
      if (step === 'endpoint-full') return;
      if (step === 'instance-full') {
        this.starved.add(lane);
        return;
      }
      const d = this.takeHead(lane);
      this.track(this.send(d, p, gate, lane));
    }
  }

  private takeHead(lane: Lane): Live {
    const d = lane.ready.shift() as Live;
    d.inLane = false;
    lane.breakerPlan = undefined;
    return d;
  }

  /**
   * While the breaker is open its lane waits (its `halfOpen` event resumes it); expired deliveries die. The queue
   * is planned once per open period: later arrivals (a hung endpoint keeps receiving notifications) plan only
   * themselves, so each costs the same however long the waiting queue has grown.
   */
  private waitForBreaker(lane: Lane, gate: EndpointGate): void {
    const at = Breakers.retryAt(gate, this.deps.config.BREAKER_RESET_MS);
    const period = `${Breakers.state(gate)}@${gate.openedAt}`;
    const from = lane.breakerPlan?.period === period ? lane.breakerPlan.upTo : 0;
    if (from >= lane.ready.length) return;
    const plan = planBreakerWait(from ? lane.ready.slice(from) : lane.ready, Date.now(), this.spanMs, at);
    for (const w of plan.waiting) w.delivery.nextAttemptAt = w.nextAttemptAt;
    if (plan.expired.length) {
      for (const d of plan.expired) d.inLane = false;
      lane.ready = lane.ready.filter((d) => d.inLane);
      for (const d of plan.expired) {
        this.track(this.finishWithoutSend(d, 'circuit breaker open until the delivery window ended', true));
      }
    }
    lane.breakerPlan = { period, upTo: lane.ready.length };
  }

  /** The breaker of an endpoint half-opened or closed: its lane may send again. */
  resume(key: string): void {
    const lane = this.lanes.get(key);
    if (lane) this.pump(lane);
  }

  private track(task: Promise<void>): void {
    const t = task.catch((err) => this.log.error({ err }, 'delivery task failed')).finally(() => this.tasks.delete(t));
    this.tasks.add(t);
  }

  private secretsOf(p: ProviderDoc): DeliverySecrets {
    const key = `${keyOf(p)}@${p.version}`;
    let s = this.secrets.get(key);
    if (!s) {
      s = p.sealed
        ? openDeliverySecrets(this.deps.box, p.sealed, sealedAad(p.accountId, p.provider, p.version))
        : { headers: [], signingSecrets: [] };
      this.secrets.set(key, s);
    }
    return s;
  }

  /** Signs and POSTs one delivery through its endpoint's breaker, then records the outcome. */
  private async send(d: Live, p: ProviderDoc & { endpoint: string }, gate: EndpointGate, lane: Lane): Promise<void> {
    const { breakers, client } = this.deps;
    const attemptNo = d.attemptCount + 1;
    d.sending = true;
    lane.inFlight++;
    this.sending++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      lane.inFlight--;
      this.sending--;
      this.pump(lane);
      if (this.starved.size && this.sending < this.deps.config.MAX_IN_FLIGHT) {
        const starved = [...this.starved];
        this.starved.clear();
        for (const l of starved) this.pump(l);
      }
    };
    try {
      let secrets: DeliverySecrets;
      try {
        secrets = this.secretsOf(p);
      } catch (err) {
        release();
        await this.recordOutcome(
          d,
          { kind: 'error', error: (err as Error).message, latencyMs: 0 },
          attemptNo,
          p,
          Date.now(),
        );
        return;
      }
      const startedAt = Date.now();
      d.timeline.sentAt = startedAt;
      d.timeline.answeredAt = undefined;
      const signature = signWebhook(d.id, d.body, secrets.signingSecrets, startedAt) ?? {
        'webhook-id': d.id,
        'webhook-timestamp': String(Math.floor(startedAt / 1000)),
      };
      const headers: Record<string, string> = {
        ...providerHeaders(secrets),
        ...signature,
        'x-request-id': `${d.id}:${attemptNo}`,
        ...(d.traceparent ? { traceparent: d.traceparent } : {}),
      };
      // fire() runs synchronously up to the request: a half-open breaker admits exactly this one.
      // A client span for the POST, in the trace of the event that caused the notification.
      const out = await breakers.send(gate, () =>
        withSpan(
          'notifier',
          'POST provider endpoint',
          { kind: SpanKind.CLIENT, parent: d.traceparent, attributes: { 'cc.provider': p.provider } },
          async (traceparent, span) => {
            const result = await client.post({ url: p.endpoint, body: d.body, headers: { ...headers, traceparent } });
            if (result.kind === 'response') span.setAttribute('http.response.status_code', result.status);
            return result;
          },
        ),
      );
      d.timeline.answeredAt = Date.now();
      release();
      if (!out.sent) {
        // The breaker opened since the lane looked: no attempt; the lane's half-open resumes it.
        this.metrics?.attempts.inc({ outcome: 'rejected' });
        d.sending = false;
        this.enqueue(d);
        return;
      }
      await this.recordOutcome(d, out.result, attemptNo, p, startedAt);
    } finally {
      release();
    }
  }

  /** Decides after an attempt, records it with its events, then retries on a timer or lets the chain go on. */
  private async recordOutcome(
    d: Live,
    result: AttemptResult,
    attemptNo: number,
    p: ProviderDoc | undefined,
    startedAt: number,
  ): Promise<void> {
    const { config } = this.deps;
    const now = new Date();
    const decision = decideAfterAttempt(result, attemptNo, config.schedule, now.getTime(), this.deps.random);
    const next = decision.nextAttemptAt === null ? null : new Date(decision.nextAttemptAt);
    const events: { topic: string; event: CloudEvent }[] = [];
    const base = baseOf(d);
    if (decision.state === 'delivered') {
      events.push({
        topic: deliveryTopic,
        event: deliveredEvent(base, attemptNo, decision.status as number, result.latencyMs, now),
      });
    } else if (decision.state === 'failed') {
      events.push({
        topic: deliveryTopic,
        event: attemptFailedEvent(base, attemptNo, decision.status, decision.error, next as Date, now),
      });
    } else {
      events.push(...this.deadEvents(d, attemptNo, decision.status, decision.error, now));
    }
    // A 410 disables the endpoint before the delivery is recorded dead: whoever sees the dead delivery
    // also sees the disabled endpoint, and a crash in between retries the delivery, not the reverse.
    if (decision.disableEndpoint && p) await this.disableEndpoint(p);
    const attempt: AttemptRecord = {
      at: new Date(startedAt),
      status: decision.status,
      latencyMs: result.latencyMs,
      error: decision.error,
    };
    await this.commit(d, {
      state: decision.state,
      nextAttemptAt: next,
      status: decision.status,
      error: decision.error,
      attempts: [attempt],
      attemptsMade: 1,
      events,
      at: now,
    });
    d.attemptCount = attemptNo;
    this.logIfSlow(d, decision.state, attemptNo, decision.status);

    const seconds = result.latencyMs / 1000;
    this.metrics?.attempts.inc({ outcome: decision.state });
    this.metrics?.attemptSeconds.observe({ outcome: decision.state }, seconds);
    if (decision.state === 'delivered') {
      this.metrics?.endToEndSeconds.observe({}, (now.getTime() - d.createdAt) / 1000);
      this.log.debug(
        { deliveryId: d.id, status: decision.status, latencyMs: result.latencyMs },
        'notification delivered',
      );
    } else if (decision.state === 'failed') {
      this.log.warn(
        {
          deliveryId: d.id,
          provider: d.provider,
          attempt: attemptNo,
          status: decision.status,
          error: decision.error,
          nextAttemptAt: next,
        },
        'notification attempt failed; will retry',
      );
    } else {
      this.log.error(
        { deliveryId: d.id, provider: d.provider, attempt: attemptNo, status: decision.status, error: decision.error },
        'notification dead',
      );
    }
    this.after(d, decision.state, next);
  }

  /** A delivery refused without an HTTP call: dead at once (`final`), or a failed attempt retried on the schedule. */
  private async finishWithoutSend(d: Live, reason: string, final: boolean): Promise<void> {
    d.sending = true; // out of every queue until its outcome is written
    if (!final) {
      await this.recordOutcome(
        d,
        { kind: 'error', error: reason, latencyMs: 0 },
        d.attemptCount + 1,
        undefined,
        Date.now(),
      );
      return;
    }
    const at = new Date();
    await this.commit(d, {
      state: 'dead',
      nextAttemptAt: null,
      status: null,
      error: reason,
      attempts: [],
      attemptsMade: 0,
      events: this.deadEvents(d, Math.max(1, d.attemptCount), null, reason, at),
      at,
    });
    this.metrics?.attempts.inc({ outcome: 'dead' });
    this.log.warn({ deliveryId: d.id, provider: d.provider, reason }, 'notification dead without an attempt');
    this.logIfSlow(d, 'dead', d.attemptCount, null);
    this.after(d, 'dead', null);
  }

  /**
   * A delivery whose outcome came later than SLOW_DELIVERY_MS after its event: its timeline, to tell consumer lag,
   * the record write, waiting in its chain or lane, the POST and the outcome write apart.
   */
  private logIfSlow(d: Live, outcome: DeliveryDoc['state'], attempt: number, status: number | null): void {
    const now = Date.now();
    if (!isSlow(d.timeline, now, this.deps.config.SLOW_DELIVERY_MS)) return;
    this.log.warn(
      {
        deliveryId: d.id,
        notification: d.notification,
        interactionId: d.interactionId,
        provider: d.provider,
        attempt,
        outcome,
        status,
        timeline: timelineView(d.timeline, now),
      },
      'slow notification',
    );
  }

  private after(d: Live, state: DeliveryDoc['state'], next: Date | null): void {
    d.sending = false;
    if (state === 'failed' && next) {
      d.state = 'failed';
      d.nextAttemptAt = next.getTime();
      if (this.live.get(d.id) === d && d.version >= 0) this.schedule(d);
      else this.forget(d);
      return;
    }
    this.forget(d);
  }

  /** A finished (or lost) delivery leaves memory; the next of its interaction becomes due. */
  private forget(d: Live): void {
    clearTimeout(d.timer);
    if (this.live.get(d.id) === d) this.live.delete(d.id);
    const plan = leaveChain(this.chains.get(d.interactionKey) ?? [], d, (x) => x.timer !== undefined);
    if (plan.chain.length === 0) this.chains.delete(d.interactionKey);
    else this.chains.set(d.interactionKey, plan.chain);
    if (plan.schedule) this.schedule(plan.schedule);
  }

  private deadEvents(d: Live, attempt: number, status: number | null, error: string | null, at: Date) {
    // Only on the outcome topic: the group's dead-letter topic holds consumed messages it could not handle, one shape.
    return [{ topic: deliveryTopic, event: deadLetteredEvent(baseOf(d), attempt, status, error, at) }];
  }

  /** Writes an outcome (after the delivery's record is durable), in the next outcome batch. */
  private async commit(
    d: Live,
    o: Omit<OutcomeWrite, 'id' | 'version' | 'outbox'> & { events: PendingOutcome['events'] },
  ): Promise<void> {
    const isNew = await d.recorded;
    const { events, ...rest } = o;
    const version = isNew ? d.version : -1;
    await this.outcomes.add({ write: { ...rest, id: d.id, version, outbox: [] }, events });
    if (version >= 0) d.version = version + 1;
  }

  /**
   * One outcome batch: its events are published first (one produce call per topic), then every state
   * is written in one bulk write. Events that could not be published are staged in their delivery's
   * outbox in that same write, for the relay. A crash between the two re-sends the delivery later
   * (same webhook-id); its events are at least once, like every event here.
   */
  private async writeOutcomes(items: PendingOutcome[]): Promise<void> {
    const byTopic = new Map<string, CloudEvent[]>();
    for (const i of items) {
      for (const e of i.events) byTopic.set(e.topic, [...(byTopic.get(e.topic) ?? []), e.event]);
    }
    const failedTopics = new Set<string>();
    await Promise.all(
      [...byTopic].map(([topic, events]) =>
        this.deps.producer.publish(topic, events).catch((err) => {
          failedTopics.add(topic);
          this.log.warn({ err: (err as Error).message, topic }, 'outcome events not published; staged in the outbox');
        }),
      ),
    );
    const writes = items.map((i) => {
      const staged = i.events.filter((e) => failedTopics.has(e.topic));
      if (staged.length === 0) return i.write;
      return { ...i.write, outbox: staged.flatMap((e) => outboxEntries(e.topic, [e.event])) };
    });
    await this.deps.deliveries.writeOutcomes(writes);
    if (failedTopics.size) {
      for (const w of writes) if (w.outbox.length) await this.deps.publisher.soon(this.deps.deliveries.queue, w.id);
    }
  }

  /** 410 Gone: the endpoint is disabled until the provider is registered again; announced once. */
  private async disableEndpoint(p: ProviderDoc): Promise<void> {
    const { providers, publisher, breakers } = this.deps;
    const key = keyOf(p);
    const now = new Date();
    this.providerCache.set(key, { ...p, disabledAt: now });
    breakers.reset(key);
    const pending = Math.max(0, this.openCount(key) - 1);
    const id = await providers.disable(
      { accountId: p.accountId, provider: p.provider },
      p.version,
      endpointDisabledEvent(p.accountId, p.provider, pending, now),
      now,
    );
    if (id !== undefined) {
      await publisher.soon(providers.system, id);
      this.log.warn({ provider: p.provider, accountId: p.accountId, pending }, 'endpoint answered 410 Gone; disabled');
    }
  }

  // ---- recovery ----

  /** Takes over open deliveries left by a stopped owner (this instance's earlier life, or another whose lease ended). */
  private async takeOver(atStart: boolean): Promise<void> {
    const { deliveries, owner, config } = this.deps;
    const now = Date.now();
    const open = (await deliveries.findOpen()).filter(
      (doc) =>
        !this.live.has(doc._id) &&
        ((atStart && doc.owner === owner) || !doc.leaseUntil || new Date(doc.leaseUntil).getTime() < now),
    );
    if (open.length === 0) return;
    const leaseUntil = new Date(now + config.leaseMs);
    const taken: Live[] = [];
    await Promise.all(
      open.map(async (doc) => {
        const due = doc.nextAttemptAt !== null && new Date(doc.nextAttemptAt).getTime() <= now;
        const interrupted: AttemptRecord | undefined =
          doc.owner && due
            ? { at: new Date(doc.nextAttemptAt as Date), status: null, latencyMs: 0, error: interruptedError }
            : undefined;
        if (await deliveries.takeOver(doc, owner, leaseUntil, interrupted)) {
          taken.push(toLive({ ...doc, version: doc.version + 1 }, Promise.resolve(true)));
        }
      }),
    );
    // Earliest first, so each interaction's chain is complete before its head is queued.
    for (const d of taken.sort(compareDeliveries2)) this.admit(d);
    this.log.info({ taken: taken.length }, 'open deliveries taken over');
  }

  /** The slow safety sweep: take over what a stopped instance left, expire old bookkeeping. */
  private async sweep(): Promise<void> {
    await this.takeOver(false);
    const cutoff = new Date(Date.now() - this.deps.config.retentionMs);
    const expired = await this.deps.deliveries.expireFinished(cutoff, 50);
    if (expired) this.log.info({ expired }, 'finished deliveries expired');
    await this.onSweep?.(cutoff);
  }

  /** Extra bookkeeping expiry run by the sweep (the interaction facts). */
  onSweep?: (cutoff: Date) => Promise<void>;
}

function keyOf(p: { accountId: string; provider: string }): string {
  return JSON.stringify([p.accountId, p.provider]);
}

function compareDeliveries2(a: Live, b: Live): number {
  return compareDeliveries(
    { id: a.id, interactionKey: a.interactionKey, seq: a.seq, notification: a.notification },
    { id: b.id, interactionKey: b.interactionKey, seq: b.seq, notification: b.notification },
  );
}

function toLive(doc: OpenDeliveryDoc | DeliveryDoc, recorded: Promise<boolean>): Live {
  return {
    id: doc._id,
    accountId: doc.accountId,
    provider: doc.provider,
    endpointKey: doc.endpointKey,
    interactionId: doc.interactionId,
    interactionKey: doc.interactionKey,
    notification: doc.notification,
    seq: doc.seq,
    body: doc.body,
    traceparent: doc.traceparent ?? null,
    createdAt: new Date(doc.createdAt).getTime(),
    cycleStartedAt: new Date(doc.cycleStartedAt).getTime(),
    attemptCount: doc.attemptCount ?? 0,
    version: doc.version,
    state: doc.state === 'failed' ? 'failed' : 'pending',
    nextAttemptAt: doc.nextAttemptAt ? new Date(doc.nextAttemptAt).getTime() : Date.now(),
    recorded,
    sending: false,
    inLane: false,
    timeline: { eventAt: null, acceptedAt: Date.now() },
  };
}

function baseOf(d: Live) {
  return {
    _id: d.id,
    accountId: d.accountId,
    provider: d.provider,
    interactionId: d.interactionId,
    notification: d.notification,
    traceparent: d.traceparent,
  };
}
