import type { EagerPublisher } from '@cc/bus';
import type { Logger } from '@cc/kit';
import type { AccountLeaseRepository } from '../store/account-lease.repository';
import type { AccountMemory } from '../store/account-memory';
import type { AgentRepository } from '../store/agent.repository';
import type { ConfigRepository } from '../store/config.repository';
import type { InteractionRepository } from '../store/interaction.repository';
import type { ProviderRepository } from '../store/provider.repository';
import type { RequestLogRepository } from '../store/request-log.repository';

/** The routing settings the application layer reads. */
export interface RoutingSettings {
  offerTimeoutMs: number;
  rejectCooldownMs: number;
  missedOffersAway: number;
  transferWindowSeconds: number;
  syncGraceMs: number;
  reserveGraceMs: number;
  leaseMs: number;
  /** Least time between two passes of one account (a burst of wakes is served by one pass). */
  passGapMs: number;
  /** Period of the engine's safety sweep over stored wakes. */
  sweepMs: number;
  /** How often the lease owner reads a held account whole again (a safety net; see AccountMemory). */
  reloadMs: number;
  /** Accounts no pass has used for this long leave memory. */
  memoryIdleMs: number;
  maxQueuedPerPass: number;
  /** Passes of different accounts one instance runs at once. */
  passConcurrency: number;
  instanceId: string;
}

/** Asks for a routing pass of an account (stored, so whichever instance holds the lease runs it). */
export interface Waker {
  wake(accountId: string): Promise<void>;
}

/** Everything the application services share. */
export interface RoutingContext {
  settings: RoutingSettings;
  logger: Logger;
  interactions: InteractionRepository;
  agents: AgentRepository;
  config: ConfigRepository;
  providers: ProviderRepository;
  requests: RequestLogRepository;
  leases: AccountLeaseRepository;
  /** The routing state of the accounts whose lease this instance holds. */
  memory: AccountMemory;
  publisher: EagerPublisher;
  waker: Waker;
}
