import { agentSummariesQuery, apiVersions } from '@cc/contracts';
import { negotiateVersion, type Principal, requireAuth, validateRequest } from '@cc/kit';
import type { Express } from 'express';
import { agentSummariesHandler, type SummariesDeps } from './agent-summaries.handler';

/** What the summaries routes need from the composition root. */
export interface RouteDeps extends SummariesDeps {
  verify: (token: string) => Promise<Principal>;
}

/** Mounts GET /stats/wfm/agent-summaries (scope `stats`). Order: auth (401/403), version (406), schema (400), handler. */
export function mountRoutes(app: Express, deps: RouteDeps): void {
  app.get(
    '/stats/wfm/agent-summaries',
    requireAuth(deps.verify, 'stats'),
    negotiateVersion(apiVersions['agent-summaries']),
    validateRequest({ query: agentSummariesQuery }),
    agentSummariesHandler(deps),
  );
}
