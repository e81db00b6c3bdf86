/** A category of an account's rule set: subcategories, each found by any of its phrases. */
export interface CategoryRule {
  category: string;
  subcategories: { name: string; phrases: string[] }[];
}

/** A category found in a transcript, with the subcategories that matched and the phrase each matched on. */
export interface CategoryMatch {
  category: string;
  categories: { name: string; matches: string }[];
}

/**
 * Lower case, apostrophes dropped (don't = dont), every other non-letter/digit a single space: how both the
 * transcript and the phrases are compared, so punctuation, case and spacing never decide a match.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * The categories whose phrases occur in the transcript as whole words (a phrase `bill` does not match
 * `billing`). A subcategory appears once, with the first of its phrases found; categories and subcategories
 * keep the rule set's order.
 */
export function matchCategories(transcript: string, rules: readonly CategoryRule[]): CategoryMatch[] {
  const text = ` ${normalizeText(transcript)} `;
  const found: CategoryMatch[] = [];
  for (const rule of rules) {
    const categories: CategoryMatch['categories'] = [];
    for (const sub of rule.subcategories) {
      const phrase = sub.phrases.find((p) => {
        const n = normalizeText(p);
        return n.length > 0 && text.includes(` ${n} `);
      });
      if (phrase !== undefined) categories.push({ name: sub.name, matches: phrase });
    }
    if (categories.length) found.push({ category: rule.category, categories });
  }
  return found;
}
