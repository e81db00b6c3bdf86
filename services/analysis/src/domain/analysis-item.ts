import type { CallTimeBreakDown } from './breakdown';
import type { CategoryMatch } from './categories';

/** Processing status as the API answers it. */
export type AnalysisStatus = 'processing' | 'processed' | 'failed';

/** Confidence in a transcript, capitalised as existing clients read it. */
export type Confidence = 'High' | 'Medium' | 'Low';

/** What the service knows about one call's analysis (version-free). */
export interface AnalysisView {
  guid: string;
  status: AnalysisStatus;
  categories: CategoryMatch[];
  confidence: Confidence | null;
  callTimeBreakDown: CallTimeBreakDown;
  language: string | null;
  transcript: string | null;
}

const zero: CallTimeBreakDown = { agent: 0, customer: 0, silence: 0, crossTalk: 0 };

/** The breakdown to answer while none is computed yet (processing or failed): zeros. */
export const emptyBreakDown = (): CallTimeBreakDown => ({ ...zero });

/**
 * The item in API version 1, 2 or 3: v1 categories carry `subcategories` (names), v2 and v3 nested
 * `categories` of {name, matches}; v3 adds `language`. The transcript only when asked for.
 */
export function renderItem(view: AnalysisView, version: number, withTranscript: boolean): Record<string, unknown> {
  const categories =
    version === 1
      ? view.categories.map((c) => ({ category: c.category, subcategories: c.categories.map((s) => s.name) }))
      : view.categories.map((c) => ({ category: c.category, categories: c.categories.map((s) => ({ ...s })) }));
  return {
    categories,
    guid: view.guid,
    status: view.status,
    confidence: view.confidence,
    callTimeBreakDown: { ...view.callTimeBreakDown },
    transcript: withTranscript ? view.transcript : null,
    ...(version >= 3 ? { language: view.language } : {}),
  };
}

/** The list endpoint's entry for a GUID the account has no recording of (documented in the contract). */
export function notFoundItem(guid: string): Record<string, unknown> {
  return { guid, error: { status: 404, code: 'ANALYSIS.UNKNOWN_CALL', title: 'No recorded call with this GUID' } };
}
