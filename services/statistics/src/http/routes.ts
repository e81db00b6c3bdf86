import {
  agentActivitiesQuery,
  apiVersions,
  type JsonSchema,
  statsInteractionsQuery,
  type V0Deprecation,
  type V0Endpoint,
  v0Replacements,
  v0StatisticsParams,
  v0StatisticsQuery,
} from '@cc/contracts';
import { negotiateVersion, type Principal, requireAuth, validateRequest } from '@cc/kit';
import type { Express } from 'express';
import type { StatisticsRepository } from '../store/statistics.repository';
import { agentActivitiesHandler, interactionsHandler } from './stats.handler';
import { deprecationHeaders, sameAccountKey, v0Handler } from './v0.handler';

/** What the statistics routes need from the composition root. */
export interface RouteDeps {
  verify: (token: string) => Promise<Principal>;
  repo: StatisticsRepository;
  v0: V0Deprecation;
  now?: () => number;
}

const v0Params: JsonSchema = {
  ...v0StatisticsParams,
  required: ['accountKey'],
  properties: { accountKey: v0StatisticsParams.properties?.accountKey as JsonSchema },
};

/**
 * Mounts the statistics API (scope `stats`, v3) and the deprecated v0 endpoints (v0 tokens of the path's
 * account key only, version 2, deprecation headers on every answer). Order per route: auth (401/403), version
 * (406), schema (400), handler.
 */
export function mountRoutes(app: Express, deps: RouteDeps): void {
  const now = deps.now ?? Date.now;
  const stats = [requireAuth(deps.verify, 'stats'), negotiateVersion(apiVersions.statistics)];
  app.get(
    '/stats/agent-activities',
    ...stats,
    validateRequest({ query: agentActivitiesQuery }),
    agentActivitiesHandler(deps.repo, now),
  );
  app.get(
    '/stats/interactions',
    ...stats,
    validateRequest({ query: statsInteractionsQuery }),
    interactionsHandler(deps.repo, now),
  );
  const v0Auth = requireAuth(deps.verify, 'v0', { v0: true });
  for (const name of Object.keys(v0Replacements) as V0Endpoint[]) {
    app.get(
      `/v0/:accountKey/statistics/${name}`,
      deprecationHeaders(name, deps.v0),
      v0Auth,
      sameAccountKey,
      negotiateVersion(apiVersions['v0-statistics']),
      validateRequest({ params: v0Params, query: v0StatisticsQuery }),
      v0Handler(name, deps.repo, now),
    );
  }
}
