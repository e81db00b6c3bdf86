import { runMain } from '@cc/runtime';
import { loadServiceConfig } from './config';
import { startService } from './service';

/** Entry point: settings from the environment (read here, never at import), then the composed service. */
runMain('provider-registry', () => startService(loadServiceConfig()));
