import { ApiError, type SuiteApi } from './api';
import type { AgentPlan, CallPlan } from './plan';
import { Rng, seedOf } from './random';
import { percentile, serviceLevel, Tally } from './stats';
import { synthesizeCall } from './wav';

/** Where a call is, as the simulator knows it. */
export type CallStatus =
  | 'scheduled'
  | 'failed'
  | 'queued'
  | 'ringing'
  | 'connected'
  | 'held'
  | 'wrap'
  | 'done'
  | 'abandoned'
  | 'closed';
const terminal = new Set<CallStatus>(['failed', 'done', 'abandoned', 'closed']);

/** One call of the run and what happened to it. */
export interface CallRun {
  plan: CallPlan;
  requestId: string;
  externalId: string;
  interactionId?: string;
  status: CallStatus;
  placedAt?: number;
  answeredAt?: number;
  /** Accepted offers (each an assignment, each one AssignToAgent). */
  assignments: { agentId: string; at: number }[];
  /** An agent is looking at an offer of it (ringing) or working on it. */
  withAgent: boolean;
  transferred: boolean;
  releasedAt?: number;
  recordingStatus?: number;
}

/** One simulated agent at run time. */
export interface AgentRun {
  plan: AgentPlan;
  agentId: string;
  rng: Rng;
  presence: 'LoggedOut' | 'Ready' | 'Away';
  /** Interactions it is working on, by id, with their state. */
  work: Map<string, 'ringing' | 'connected' | 'held' | 'wrap'>;
  seenOffers: Set<string>;
  nextBreakAt: number;
  breaks: number;
  logouts: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));
const ringingThresholdMs = 20_000;

/**
 * The contact center at run time: places the planned calls at their times, runs every agent's desk (polling
 * offers, ringing delay, answers and misses, hold, transfer, release, wrap, breaks, log-outs), lets callers
 * abandon, then drains. Everything through the gateway's public APIs.
 */
export class Engine {
  readonly calls: CallRun[];
  readonly agents: AgentRun[];
  readonly byInteraction = new Map<string, CallRun>();
  readonly requests = new Tally();
  readonly errors = new Tally();
  readonly races = new Tally();
  readonly latencies: number[] = [];
  answeredWithin = 0;
  /** Hang-ups the suite never confirmed (their interactions may still wait in a queue). */
  readonly unconfirmed: CallRun[] = [];
  foreign = 0;
  startedAt = 0;
  arrivalsEnd = 0;
  phase: 'setup' | 'running' | 'draining' | 'done' = 'setup';
  private stopping = false;
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly api: SuiteApi,
    plans: CallPlan[],
    agents: { plan: AgentPlan; agentId: string }[],
    private readonly opts: {
      runId: string;
      seed: string;
      provider: string;
      routes: string[];
      durationMs: number;
      drainMs: number;
      pollMs?: number;
    },
  ) {
    this.calls = plans.map((plan) => ({
      plan,
      requestId: `${opts.runId}-${plan.index}`,
      externalId: `${opts.runId}-${plan.index}`,
      status: 'scheduled',
      assignments: [],
      withAgent: false,
      transferred: false,
    }));
    this.agents = agents.map(({ plan, agentId }) => {
      const rng = new Rng(seedOf(`${opts.seed}/agent/${plan.index}`));
      return {
        plan,
        agentId,
        rng,
        presence: 'LoggedOut',
        work: new Map(),
        seenOffers: new Set(),
        nextBreakAt: 0,
        breaks: 0,
        logouts: 0,
      };
    });
  }

  /** Observes an API answer (wired to SuiteApi's observer). */
  observe(o: { op: string; status: number; expected: boolean }): void {
    this.requests.add(o.op);
    if (!o.expected) this.errors.add(`${o.status} ${o.op}`);
  }

  private spawn(p: Promise<unknown>): void {
    const t = p.catch((err) => this.errors.add(`uncaught ${(err as Error).message.slice(0, 120)}`));
    this.tasks.add(t);
    void t.finally(() => this.tasks.delete(t));
  }

  /** Runs arrivals for the duration, then drains; resolves when every call ended (or was closed). */
  async run(): Promise<void> {
    this.startedAt = Date.now();
    this.phase = 'running';
    this.arrivalsEnd = this.startedAt + this.opts.durationMs;
    await Promise.all(this.agents.map((a) => this.login(a)));
    const desks = this.agents.map((a) => this.desk(a));
    for (const call of this.calls) {
      // Wakes at least once a second so an interrupt (arrivalsEnd moved to now) stops the arrivals promptly.
      while (Date.now() < Math.min(this.startedAt + call.plan.atMs, this.arrivalsEnd)) {
        await sleep(Math.min(1000, this.startedAt + call.plan.atMs - Date.now()));
      }
      if (Date.now() >= this.arrivalsEnd) break;
      this.spawn(this.place(call));
    }
    await sleep(this.arrivalsEnd - Date.now());
    this.phase = 'draining';
    const drainUntil = Date.now() + this.opts.drainMs;
    while (Date.now() < drainUntil && this.calls.some((c) => !terminal.has(c.status))) await sleep(500);
    // Whatever still waits in a queue is closed by the "customer" (released), counted apart from abandons.
    for (const call of this.calls) {
      if (!terminal.has(call.status) && !call.withAgent) this.spawn(this.hangUp(call, 'closed'));
    }
    const hardStop = Date.now() + 60_000;
    while (Date.now() < hardStop && this.calls.some((c) => !terminal.has(c.status))) await sleep(500);
    this.stopping = true;
    for (const t of this.timers) clearTimeout(t);
    await Promise.all(desks);
    await Promise.allSettled([...this.tasks]);
    for (const agent of this.agents) await this.setPresence(agent, 'LoggedOut').catch(() => undefined);
    this.phase = 'done';
  }

  private async login(agent: AgentRun): Promise<void> {
    // PUT presence is idempotent: a timed-out attempt (a suite still warming up) is simply sent again.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.setPresence(agent, 'Ready');
        break;
      } catch (err) {
        if (!(err instanceof ApiError) || attempt >= 5) throw err;
      }
    }
    agent.nextBreakAt = Date.now() + agent.rng.exponential(6 * 60_000);
  }

  private async setPresence(agent: AgentRun, presence: AgentRun['presence'], reason?: string): Promise<void> {
    await this.api.call('agent', {
      method: 'PUT',
      path: `/agent-desktop/agents/${agent.agentId}/presence`,
      json: { presence, ...(reason ? { reason } : {}) },
      op: 'presence',
    });
    agent.presence = presence;
  }

  /** One agent's desk: polls offers while Ready, takes breaks and log-outs when idle, until the run stops. */
  private async desk(agent: AgentRun): Promise<void> {
    const pollMs = this.opts.pollMs ?? 2000;
    await sleep(agent.rng.between(0, pollMs));
    while (!this.stopping) {
      try {
        if (this.phase === 'running' && agent.work.size === 0 && Date.now() >= agent.nextBreakAt) {
          await this.takeBreak(agent);
          continue;
        }
        // Back from a break whose return failed (counted): log in again.
        if (agent.presence !== 'Ready') await this.login(agent);
        if (agent.presence === 'Ready') {
          const offers = await this.api.call<{ offerId: string; interactionId: string }[]>('agent', {
            method: 'GET',
            path: `/agent-desktop/agents/${agent.agentId}/offers`,
            op: 'offers',
          });
          for (const offer of offers.body) {
            if (agent.seenOffers.has(offer.offerId)) continue;
            agent.seenOffers.add(offer.offerId);
            this.spawn(this.answer(agent, offer.offerId, offer.interactionId));
          }
        }
      } catch (err) {
        if (!(err instanceof ApiError)) throw err; // counted by the observer; keep working
      }
      await sleep(pollMs * agent.rng.between(0.8, 1.2));
    }
  }

  private async takeBreak(agent: AgentRun): Promise<void> {
    // One break in ten is a log-out (end of a shift part, a restart of the desktop).
    const logout = agent.rng.chance(0.1);
    const length = logout ? agent.rng.between(20_000, 60_000) : agent.rng.between(20_000, 90_000);
    await this.setPresence(agent, logout ? 'LoggedOut' : 'Away', logout ? undefined : 'Break');
    if (logout) agent.logouts++;
    else agent.breaks++;
    const until = Date.now() + length;
    while (!this.stopping && Date.now() < until && this.phase === 'running') await sleep(500);
    await this.login(agent);
  }

  /** Invoke: the call arrives; the caller hangs up after their patience unless an agent has it. */
  private async place(call: CallRun): Promise<void> {
    const p = call.plan;
    const body = {
      provider: this.opts.provider,
      requests: [
        {
          requestId: call.requestId,
          externalId: call.externalId,
          route: p.route,
          linkeddata: [
            { type: 'mediatype', value: p.media },
            { type: 'name', value: `Simulated ${p.media} ${p.index}` },
            { type: 'clid', value: `+1555${String(1_000_000 + p.index).slice(-7)}` },
            { type: 'interactionproperty', key: 'Recorded', value: p.recorded ? 'yes' : 'no' },
          ],
          routingdata: { interactiontype: p.interactionType, skills: p.skills },
        },
      ],
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await this.api.call<{ results: { interactionId: string; outcome: string }[] }>(
          'interactions:write',
          {
            method: 'POST',
            path: '/interactions/Invoke',
            json: body,
            op: 'invoke',
            expect: [202, 422],
            timeoutMs: 60_000,
          },
        );
        const code = (res.body as unknown as { code?: string }).code;
        if (res.status === 422 && code === 'INVOKE.UNKNOWN_PROVIDER' && attempt < 60) {
          // The registration is still on its way to routing (Kafka): nothing was processed, so retry.
          await sleep(1000);
          continue;
        }
        if (res.status !== 202) {
          this.errors.add(`422 invoke ${code ?? ''}`);
          call.status = 'failed';
          return;
        }
        const id = res.body.results[0]?.interactionId;
        if (!id) throw new Error('Invoke answered without an interactionId');
        call.interactionId = id;
        call.placedAt = Date.now();
        if (call.status === 'scheduled') call.status = 'queued';
        this.byInteraction.set(id, call);
        break;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // No answer or a 5xx: the same Invoke again is safe (its requestId makes routing process it once) and
        // tells whether the call got in. The failed attempt stays counted as an error.
        if ((err.status === 0 || err.status >= 500) && attempt < 3) continue;
        call.status = 'failed';
        return;
      }
    }
    if (Number.isFinite(p.patienceMs)) {
      // A timer, not an awaited sleep: the run must not wait out the patience of calls answered long ago.
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (call.status === 'queued' && !call.withAgent) this.spawn(this.hangUp(call, 'abandoned'));
      }, p.patienceMs);
      this.timers.add(timer);
    }
  }

  /** The customer ends a waiting call: Invoke with action release. */
  private async hangUp(call: CallRun, as: 'abandoned' | 'closed'): Promise<void> {
    if (terminal.has(call.status)) return;
    call.status = as;
    call.releasedAt = Date.now();
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        await this.api.call('interactions:write', {
          method: 'POST',
          path: '/interactions/Invoke',
          json: {
            provider: this.opts.provider,
            requests: [{ action: 'release', requestId: `${call.requestId}-r`, externalId: call.externalId }],
          },
          op: 'invoke-release',
          timeoutMs: 60_000,
        });
        return;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        // Same requestId: a retry after a lost answer is processed once.
        if (err.status !== 0 && err.status < 500) return;
      }
    }
    call.status = 'failed'; // the suite never confirmed the hang-up: reported as unfinished, not as abandoned
    this.unconfirmed.push(call);
  }

  /** An offer rang at an agent: after a ringing delay, a miss (reject or ring out) or an answer and the whole call. */
  private async answer(agent: AgentRun, offerId: string, interactionId: string): Promise<void> {
    const call = this.byInteraction.get(interactionId);
    const base = `/agent-desktop/agents/${agent.agentId}`;
    if (!call) {
      // Not this run's: a previous run's leftover; take it off the queue so it does not ring forever.
      this.foreign++;
      await this.act(`${base}/offers/${offerId}/accept`, 'accept', [200, 404, 409]);
      await this.act(`${base}/interactions/${interactionId}/release`, 'release', [200, 404, 409]);
      await this.act(`${base}/interactions/${interactionId}/end-wrap`, 'end-wrap', [204, 404, 409]);
      return;
    }
    if (terminal.has(call.status) || call.withAgent) return;
    call.withAgent = true;
    call.status = 'ringing';
    agent.work.set(interactionId, 'ringing');
    try {
      await sleep(agent.rng.between(1000, 5000));
      const draining = this.phase !== 'running';
      const roll = agent.rng.next();
      if (!draining && roll < 0.05) {
        const r = await this.act(`${base}/offers/${offerId}/reject`, 'reject', [204, 404, 409]);
        if (r !== 204) this.races.add('reject after the offer ended');
        this.backToQueue(call);
        return;
      }
      if (!draining && roll < 0.07) {
        // Rings out: routing times the offer out (Unexpected) and queues the call again.
        await sleep(21_000);
        this.backToQueue(call);
        return;
      }
      if (call.status !== 'ringing') return;
      const accepted = await this.act(`${base}/offers/${offerId}/accept`, 'accept', [200, 404, 409]);
      if (accepted !== 200) {
        this.races.add('accept after the offer ended');
        this.backToQueue(call);
        return;
      }
      const now = Date.now();
      call.assignments.push({ agentId: agent.agentId, at: now });
      if (call.answeredAt === undefined) {
        call.answeredAt = now;
        if (now - (call.placedAt ?? now) <= ringingThresholdMs) this.answeredWithin++;
      }
      call.status = 'connected';
      agent.work.set(interactionId, 'connected');
      const p = call.plan;
      const iPath = `${base}/interactions/${interactionId}`;
      await sleep(p.talkMs / 2);
      if (p.holdMs > 0) {
        await this.act(`${iPath}/hold`, 'hold', [200]);
        call.status = 'held';
        agent.work.set(interactionId, 'held');
        await sleep(p.holdMs);
        await this.act(`${iPath}/retrieve`, 'retrieve', [200]);
        call.status = 'connected';
        agent.work.set(interactionId, 'connected');
      }
      await sleep(p.talkMs / 2);
      if (p.transfer && !call.transferred && this.phase === 'running') {
        const other = this.opts.routes.find((r) => r !== p.route) ?? p.route;
        call.transferred = true;
        const t = await this.act(`${iPath}/transfer`, 'transfer', [202], { route: other });
        if (t === 202) {
          this.backToQueue(call);
          return;
        }
      }
      const released = await this.act(`${iPath}/release`, 'release', [200]);
      if (released === 200) {
        call.releasedAt = Date.now();
        call.status = 'wrap';
        agent.work.set(interactionId, 'wrap');
        if (p.recorded) this.spawn(this.upload(call));
        await sleep(p.wrapMs);
        await this.act(`${iPath}/end-wrap`, 'end-wrap', [204]);
        call.status = 'done';
      }
    } finally {
      agent.work.delete(interactionId);
      // Requeued calls were let go by backToQueue (another agent may hold them already).
      if (terminal.has(call.status)) call.withAgent = false;
    }
  }

  private backToQueue(call: CallRun): void {
    call.withAgent = false;
    if (!terminal.has(call.status)) call.status = 'queued';
    // A caller whose patience ran out while it rang hangs up now.
    if (
      Number.isFinite(call.plan.patienceMs) &&
      call.answeredAt === undefined &&
      Date.now() - (call.placedAt ?? 0) > call.plan.patienceMs
    ) {
      this.spawn(this.hangUp(call, 'abandoned'));
    }
  }

  /** One agent action; answers its status (expected ones only; others throw through the observer's count). */
  private async act(path: string, op: string, expect: number[], json: unknown = {}): Promise<number> {
    try {
      const res = await this.api.call('agent', { method: 'POST', path, json, op, expect });
      return res.status;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return err.status;
    }
  }

  private async upload(call: CallRun): Promise<void> {
    const wav = synthesizeCall(new Rng(seedOf(`${this.opts.seed}/recording/${call.plan.index}`)));
    try {
      const res = await this.api.call('interaction-content:write', {
        method: 'PUT',
        path: `/conversation-analyzer/recordings/${call.interactionId}`,
        body: wav,
        contentType: 'audio/wav',
        op: 'recording',
        expect: [202],
      });
      call.recordingStatus = res.status;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      call.recordingStatus = err.status;
    }
  }

  /** The numbers of the live view and the report. */
  snapshot() {
    const count = (s: CallStatus) => this.calls.filter((c) => c.status === s).length;
    const placed = this.calls.filter((c) => c.placedAt !== undefined);
    const answered = placed.filter((c) => c.answeredAt !== undefined).length;
    const abandoned = count('abandoned');
    const agents = new Tally();
    for (const a of this.agents) {
      if (a.presence !== 'Ready') agents.add(a.presence);
      else if (a.work.size === 0) agents.add('Idle');
      else {
        const states = new Set(a.work.values());
        agents.add(
          states.has('connected') ? 'Connected' : states.has('held') ? 'Held' : states.has('wrap') ? 'Wrap' : 'Ringing',
        );
      }
    }
    const sl = serviceLevel(this.answeredWithin, answered, abandoned);
    return {
      phase: this.phase,
      elapsedMs: this.startedAt ? Date.now() - this.startedAt : 0,
      planned: this.calls.length,
      offered: placed.length,
      waiting: count('queued') + count('ringing'),
      inProgress: count('connected') + count('held') + count('wrap'),
      answered,
      handled: count('done'),
      abandoned,
      closed: count('closed'),
      failed: count('failed'),
      transferred: this.calls.filter((c) => c.transferred).length,
      serviceLevel: sl,
      agents: agents.toJSON(),
      breaks: this.agents.reduce((s, a) => s + a.breaks, 0),
      logouts: this.agents.reduce((s, a) => s + a.logouts, 0),
      requests: this.requests.total(),
      errors: this.errors.toJSON(),
      races: this.races.toJSON(),
      foreign: this.foreign,
      notificationLatencyMs: { p50: percentile(this.latencies, 50), p99: percentile(this.latencies, 99) },
    };
  }

  /** Calls that were placed and never reached an end the simulator saw. */
  unfinished(): CallRun[] {
    return [...this.calls.filter((c) => c.placedAt !== undefined && !terminal.has(c.status)), ...this.unconfirmed];
  }
}
