import {
  analysisListQuery,
  analysisParams,
  analysisQuery,
  apiVersions,
  categoryRuleSet,
  recordingQuery,
} from '@cc/contracts';
import { leaveBodiesUnparsed, negotiateVersion, type Principal, requireAuth, validateRequest } from '@cc/kit';
import type { Express } from 'express';
import { getAnalysisHandler, listAnalysesHandler } from './analysis.handler';
import { getCategoriesHandler, putCategoriesHandler } from './categories.handler';
import { putRecordingHandler, type RecordingDeps, recordingPath } from './recording.handler';

/** What the analysis routes need from the composition root. */
export interface RouteDeps extends RecordingDeps {
  verify: (token: string) => Promise<Principal>;
}

/**
 * Mounts the analysis API: the read endpoints (scope `interaction-content:read`, version by Accept), the
 * recording upload (scope `interaction-content:write`, raw audio body) and the category rules (scope `admin`).
 */
export function mountRoutes(app: Express, deps: RouteDeps): void {
  // The upload's body is audio, read by its handler with its own size limit: the kit's JSON parser stays out.
  leaveBodiesUnparsed(app, (req) => req.method === 'PUT' && recordingPath.test(req.path));
  const read = [
    requireAuth(deps.verify, 'interaction-content:read'),
    negotiateVersion(apiVersions['conversation-analyzer']),
  ];
  const admin = [requireAuth(deps.verify, 'admin'), negotiateVersion(apiVersions.admin)];

  app.get(
    '/conversation-analyzer/interactions',
    ...read,
    validateRequest({ query: analysisListQuery }),
    listAnalysesHandler(deps.repo),
  );
  app.get(
    '/conversation-analyzer/interactions/:guid',
    ...read,
    validateRequest({ params: analysisParams, query: analysisQuery }),
    getAnalysisHandler(deps.repo),
  );
  app.put(
    '/conversation-analyzer/recordings/:guid',
    requireAuth(deps.verify, 'interaction-content:write'),
    validateRequest({ params: analysisParams, query: recordingQuery }),
    putRecordingHandler(deps),
  );
  app.get('/admin/analysis/categories', ...admin, getCategoriesHandler(deps.repo));
  app.put(
    '/admin/analysis/categories',
    ...admin,
    validateRequest({ body: categoryRuleSet }),
    putCategoriesHandler(deps.repo),
  );
}
