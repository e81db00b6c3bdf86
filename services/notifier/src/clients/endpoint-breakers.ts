import CircuitBreaker from 'opossum';
import type { AttemptResult } from '../domain/outcome';

/** The state of one endpoint's breaker as the admin API and metrics show it. */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** Thrown inside the breaker for a non-2xx attempt so opossum sees it; carries the result. */
class AttemptFailed extends Error {
  constructor(readonly result: AttemptResult) {
    super('attempt failed');
  }
}

/** One provider endpoint's isolation state: its opossum breaker and failure streak. */
export interface EndpointGate {
  key: string;
  endpoint: string;
  host: string;
  breaker: CircuitBreaker<[() => Promise<AttemptResult>], AttemptResult>;
  consecutiveFailures: number;
  openedAt: number | null;
}

/** What {@link EndpointBreakers} needs. */
export interface EndpointBreakersOptions {
  /** Attempts in the rolling window before the breaker may open at all (opossum `volumeThreshold`). */
  volumeThreshold: number;
  /** Failed share of the window's attempts above which it opens (opossum `errorThresholdPercentage`). */
  errorPercentage: number;
  /** How long it stays open before letting one trial request through (opossum `resetTimeout`). */
  resetMs: number;
  /** The rolling window (opossum `rollingCountTimeout`). */
  windowMs: number;
  /** Told of every state change (logs; the pipeline resumes a lane on `halfOpen` and `closed`). */
  onStateChange?: (gate: EndpointGate, state: BreakerState) => void;
  /** Told of every breaker event (metrics). */
  onEvent?: (gate: EndpointGate, event: BreakerEvent) => void;
}

/** The opossum events counted in metrics. */
export type BreakerEvent = 'success' | 'failure' | 'reject' | 'open' | 'halfOpen' | 'close';
const countedEvents: BreakerEvent[] = ['success', 'failure', 'reject', 'open', 'halfOpen', 'close'];

/** The outcome of sending through a gate: the attempt's result, or rejected without a call. */
export type GateResult = { sent: true; result: AttemptResult } | { sent: false };

/**
 * Is this result the provider's own answer rather than an endpoint failure? A 4xx other than 408
 * and 429 means the endpoint is up and refused this request: the retry policy handles it, but it
 * does not count against the breaker (opossum's `errorFilter`).
 */
export function isProviderAnswer(result: AttemptResult): boolean {
  return (
    result.kind === 'response' &&
    result.status >= 400 &&
    result.status < 500 &&
    result.status !== 408 &&
    result.status !== 429
  );
}

/**
 * A circuit breaker per provider endpoint, used as opossum designs it: it opens when more than
 * `errorPercentage` of the attempts in the rolling window failed once the window holds at least
 * `volumeThreshold` attempts; it half-opens after `resetMs` and lets one trial through, which closes
 * it or opens it again. 5xx, timeouts, transport errors, 408 and 429 are failures; other 4xx are not
 * (`errorFilter`). The client enforces the attempt deadline (opossum's own timeout is off).
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
        if (result.kind !== 'response' || result.status < 200 || result.status >= 300) throw new AttemptFailed(result);
        return result;
      },
      {
        name: key,
        timeout: false,
        resetTimeout: this.opts.resetMs,
        errorThresholdPercentage: this.opts.errorPercentage,
        volumeThreshold: this.opts.volumeThreshold,
        rollingCountTimeout: this.opts.windowMs,
        errorFilter: (err: unknown) => err instanceof AttemptFailed && isProviderAnswer(err.result),
      },
    );
    const gate: EndpointGate = {
      key,
      endpoint,
      host: hostOf(endpoint),
      breaker,
      consecutiveFailures: 0,
      openedAt: null,
    };
    breaker.on('failure', () => {
      gate.consecutiveFailures++;
    });
    breaker.on('success', () => {
      gate.consecutiveFailures = 0;
    });
    breaker.on('open', () => {
      gate.openedAt = Date.now();
      this.opts.onStateChange?.(gate, 'open');
    });
    breaker.on('halfOpen', () => this.opts.onStateChange?.(gate, 'halfOpen'));
    breaker.on('close', () => {
      gate.openedAt = null;
      this.opts.onStateChange?.(gate, 'closed');
    });
    for (const event of countedEvents) {
      (breaker as unknown as NodeJS.EventEmitter).on(event, () => this.opts.onEvent?.(gate, event));
    }
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

  /** Would a request be let through now? Closed: yes; half-open: only until its one trial started; open: no. */
  static admits(gate: EndpointGate): boolean {
    return gate.breaker.closed || gate.breaker.pendingClose;
  }

  /** When an open gate lets its next trial through (epoch ms); now when it is not open. */
  static retryAt(gate: EndpointGate, resetMs: number): number {
    return gate.breaker.opened && gate.openedAt !== null ? gate.openedAt + resetMs : Date.now();
  }

  /** Sends through the gate: rejected without a call while open (or while a half-open trial runs). */
  async send(gate: EndpointGate, attempt: () => Promise<AttemptResult>): Promise<GateResult> {
    try {
      return { sent: true, result: await gate.breaker.fire(attempt) };
    } catch (err) {
      if (err instanceof AttemptFailed) return { sent: true, result: err.result };
      if ((err as { code?: string }).code === 'EOPENBREAKER') return { sent: false };
      throw err;
    }
  }

  /** Stops every breaker's timers. */
  shutdown(): void {
    for (const gate of this.gates.values()) gate.breaker.shutdown();
    this.gates.clear();
  }
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'invalid';
  }
}
