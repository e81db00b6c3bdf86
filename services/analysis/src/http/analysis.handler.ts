import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import { type AnalysisView, emptyBreakDown, notFoundItem, renderItem } from '../domain/analysis-item';
import { analysisError } from '../domain/errors';
import type { AnalysisDoc } from '../store/analysis.model';
import type { AnalysisRepository } from '../store/analysis.repository';

/** The version-free view of a stored analysis: queued and running both read as `processing`. */
export function viewOf(doc: AnalysisDoc): AnalysisView {
  const r = doc.result;
  const status = doc.state === 'processed' ? 'processed' : doc.state === 'failed' ? 'failed' : 'processing';
  return {
    guid: doc.guid,
    status,
    categories: r?.categories ?? [],
    confidence: r?.confidence ?? null,
    callTimeBreakDown: r?.callTimeBreakDown ?? emptyBreakDown(),
    language: r?.language ?? null,
    transcript: r?.transcript ?? null,
  };
}

/** GET /conversation-analyzer/interactions/{guid}: one call's analysis in the negotiated version; 404 if unknown. */
export function getAnalysisHandler(repo: AnalysisRepository): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const guid = req.params.guid as string;
    const transcript = (req.query as { transcript?: boolean }).transcript === true;
    const doc = (await repo.getMany(accountId, [guid], transcript)).get(guid);
    if (!doc) throw analysisError('ANALYSIS.UNKNOWN_CALL', `No recorded call ${guid}`);
    res.json(renderItem(viewOf(doc), res.locals.apiVersion ?? 3, transcript));
  };
}

/**
 * GET /conversation-analyzer/interactions?calls=: one entry per requested GUID in request order, the
 * not-found entry for GUIDs the account has no recording of.
 */
export function listAnalysesHandler(repo: AnalysisRepository): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const { calls, transcript } = req.query as unknown as { calls: string; transcript?: boolean };
    const guids = calls.split(',');
    const found = await repo.getMany(accountId, guids, transcript === true);
    const version = res.locals.apiVersion ?? 3;
    res.json(
      guids.map((g) => {
        const doc = found.get(g);
        return doc ? renderItem(viewOf(doc), version, transcript === true) : notFoundItem(g);
      }),
    );
  };
}
