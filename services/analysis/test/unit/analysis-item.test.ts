import { analysisItemByVersion, bodyValidator } from '@cc/contracts';
import { type AnalysisView, notFoundItem, renderItem } from '../../src/domain/analysis-item';

const view: AnalysisView = {
  guid: '3f2b8c1e-9d4a-4c6b-8e2f-1a7d5c9b0e34',
  status: 'processed',
  categories: [{ category: 'Retention', categories: [{ name: 'Cancellation', matches: 'cancel my subscription' }] }],
  confidence: 'High',
  callTimeBreakDown: { agent: 7.5, customer: 3.1, silence: 6.7, crossTalk: 1.1 },
  language: 'en-US',
  transcript: '[00:00.8 Agent] thank you for calling',
};

describe('renderItem', () => {
  it('v1 carries subcategories (names), no language', () => {
    const item = renderItem(view, 1, false);
    expect(item.categories).toEqual([{ category: 'Retention', subcategories: ['Cancellation'] }]);
    expect(item).not.toHaveProperty('language');
  });

  it('v2 carries nested categories of {name, matches}, no language', () => {
    const item = renderItem(view, 2, false);
    expect(item.categories).toEqual([
      { category: 'Retention', categories: [{ name: 'Cancellation', matches: 'cancel my subscription' }] },
    ]);
    expect(item).not.toHaveProperty('language');
  });

  it('v3 is v2 plus language', () => {
    const v2 = renderItem(view, 2, false);
    const v3 = renderItem(view, 3, false);
    expect(v3).toEqual({ ...v2, language: 'en-US' });
  });

  it('includes the transcript only when asked', () => {
    expect(renderItem(view, 3, false).transcript).toBeNull();
    expect(renderItem(view, 3, true).transcript).toBe(view.transcript);
  });

  it.each([1, 2, 3] as const)('v%s validates against the contract', (v) => {
    const validate = bodyValidator(analysisItemByVersion[v]);
    expect(validate(renderItem(view, v, true))).toMatchObject({ ok: true });
  });

  it('names an unknown GUID in the not-found entry', () => {
    expect(notFoundItem(view.guid)).toEqual({
      guid: view.guid,
      error: { status: 404, code: 'ANALYSIS.UNKNOWN_CALL', title: 'No recorded call with this GUID' },
    });
  });
});
