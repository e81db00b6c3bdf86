import { batchedStdout } from '@cc/kit';
import { runMain } from '@cc/runtime';
import { loadServiceConfig } from './config';
import { startService } from './service';

/**
 * Entry point: settings from the environment (read here, never at import), then the composed service. Log lines
 * leave stdout in batches (at most 250 ms late): a write per access line cost the hot path ~7 % of its CPU.
 */
runMain('gateway', () => startService(loadServiceConfig(), { logDestination: batchedStdout() }));
