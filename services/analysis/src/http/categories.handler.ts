import { principalOf } from '@cc/kit';
import type { RequestHandler } from 'express';
import type { CategoryRule } from '../domain/categories';
import type { AnalysisRepository } from '../store/analysis.repository';

/** GET /admin/analysis/categories: the account's category rules (empty when none are configured). */
export function getCategoriesHandler(repo: AnalysisRepository): RequestHandler {
  return async (_req, res) => {
    const { accountId } = principalOf(res);
    res.json({ categories: await repo.rules(accountId) });
  };
}

/** PUT /admin/analysis/categories: replaces the account's rules; they apply to analyses that end from now on. */
export function putCategoriesHandler(repo: AnalysisRepository): RequestHandler {
  return async (req, res) => {
    const { accountId } = principalOf(res);
    const { categories } = req.body as { categories: CategoryRule[] };
    await repo.setRules(accountId, categories);
    req.log.info({ accountId, categories: categories.length }, 'category rules replaced');
    res.json({ categories });
  };
}
