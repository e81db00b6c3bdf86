import CircuitBreaker from 'opossum';
import type { AttemptResult } from '../domain/outcome';

/** The state of one endpoint's breaker as the admin API and metrics show it. */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** Thrown inside the breaker for a failed attempt so opossum counts it; carries the result. */
class AttemptFailed extends Error {
  constructor(readonly result: AttemptResult) {
    super('attempt failed');
  }
}

/** One provider endpoint's isolation state: its breaker and failure streak. */
export interface EndpointGate {
  key: string;
  endpoint: string;
  host: string;
  breaker: CircuitBreaker<[() => Promise<AttemptResult>], AttemptResult>;
  consecutiveFailures: number;
  openedAt: number | null;
  /** A half-open trial request is under way (only one is let through). */
  trialInFlight: boolean;
}

/** What {@link EndpointBreakers} needs. */
export interface EndpointBreakersOptions {
  /** Consecutive failed attempts that open the breaker. */
  failureThreshold: number;
  /** How long it stays open before letting one trial request through. */
  resetMs: number;
  /** Told of every state change (metrics, logs). */
  onStateChange?: (gate: EndpointGate, state: BreakerState) => void;
}

/** The outcome of sending through a gate: the attempt's result, or rejected without a call. */
export type GateResult = { sent: true; result: AttemptResult } | { sent: false };

/**
 * A circuit breaker per provider endpoint (opossum). Every non-2xx answer and every transport
 * failure is an endpoint failure here (4xx included: the request is the same for every endpoint, so
 * a 4xx means the endpoint is misconfigured). The breaker opens after `failureThreshold` consecutive
 * failures (tracked here; opossum's percentage rule is switched off), half-opens after `resetMs`
 * letting one trial through, and closes on its success or re-opens on its failure.
 */
export class EndpointBreakers {
  private readonly gates = new Map<string, EndpointGate>();

  constructor(private readonly opts: EndpointBreakersOptions) {}

  /** The gate of an endpoint; a new endpoint URL for the same provider starts a fresh gate. */
  gate(key: string, endpoint: string): EndpointGate {
    const existing = this.gates.get(key);
    if (existing && existing.endpoint === endpoint) return existing;
    if (existing) existing.breaker.shutdown();
    const breaker = new CircuitBreaker<[() => Promise<AttemptResult>], AttemptResult>(
      async (attempt) => {
        const result = await attempt();
        if (!isSuccess(result)) throw new AttemptFailed(result);
        return result;
      },
      {
        name: key,
        timeout: false, // the client enforces the attempt deadline
        resetTimeout: this.opts.resetMs,
        errorThresholdPercentage: 100, // never opens by percentage: see consecutive failures below
        volumeThreshold: Number.MAX_SAFE_INTEGER,
        rollingCountTimeout: 60_000,
      },
    );
    const gate: EndpointGate = {
      key,
      endpoint,
      host: hostOf(endpoint),
      breaker,
      consecutiveFailures: 0,
      openedAt: null,
      trialInFlight: false,
    };
    breaker.on('open', () => {
      gate.openedAt = Date.now();
      this.opts.onStateChange?.(gate, 'open');
    });
    breaker.on('halfOpen', () => this.opts.onStateChange?.(gate, 'halfOpen'));
    breaker.on('close', () => {
      gate.openedAt = null;
      this.opts.onStateChange?.(gate, 'closed');
    });
    this.gates.set(key, gate);
    this.opts.onStateChange?.(gate, 'closed');
    return gate;
  }

  /** The gate of a key, if one exists. */
  find(key: string): EndpointGate | undefined {
    return this.gates.get(key);
  }

  /** Every gate (for metrics and the admin API). */
  all(): EndpointGate[] {
    return [...this.gates.values()];
  }

  /** Forgets an endpoint (provider re-registered or deleted): its next gate starts closed. */
  reset(key: string): void {
    const gate = this.gates.get(key);
    if (!gate) return;
    gate.breaker.shutdown();
    this.gates.delete(key);
  }

  /** The state of a gate. */
  static state(gate: EndpointGate): BreakerState {
    if (gate.breaker.halfOpen) return 'halfOpen';
    if (gate.breaker.opened) return 'open';
    return 'closed';
  }

  /** When an open gate lets its next trial through (epoch ms); now when it is not open. */
  static retryAt(gate: EndpointGate, resetMs: number): number {
    return gate.breaker.opened && gate.openedAt !== null ? gate.openedAt + resetMs : Date.now();
  }

  /** Sends through the gate: rejected without a call while open (or while a half-open trial runs). */
  async send(gate: EndpointGate, attempt: () => Promise<AttemptResult>): Promise<GateResult> {
    const trial = gate.breaker.halfOpen && !gate.trialInFlight;
    if (trial) gate.trialInFlight = true;
    try {
      const result = await gate.breaker.fire(attempt);
      gate.consecutiveFailures = 0;
      return { sent: true, result };
    } catch (err) {
      if (err instanceof AttemptFailed) {
        gate.consecutiveFailures++;
        if (gate.consecutiveFailures >= this.opts.failureThreshold && gate.breaker.closed) gate.breaker.open();
        return { sent: true, result: err.result };
      }
      if ((err as { code?: string }).code === 'EOPENBREAKER') return { sent: false };
      throw err;
    } finally {
      if (trial) gate.trialInFlight = false;
    }
  }

  /** Stops every breaker's timers. */
  shutdown(): void {
    for (const gate of this.gates.values()) gate.breaker.shutdown();
    this.gates.clear();
  }
}

function isSuccess(result: AttemptResult): boolean {
  return result.kind === 'response' && result.status >= 200 && result.status < 300;
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid';
  }
}
