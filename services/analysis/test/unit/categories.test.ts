import { type CategoryRule, matchCategories, normalizeText } from '../../src/domain/categories';

const rules: CategoryRule[] = [
  {
    category: 'Retention',
    subcategories: [
      { name: 'Cancellation', phrases: ['cancel my subscription', 'close my account'] },
      { name: 'Offer', phrases: ['discount'] },
    ],
  },
  { category: 'Technical', subcategories: [{ name: 'Connectivity', phrases: ["Internet connection isn't working"] }] },
  { category: 'Billing', subcategories: [{ name: 'Invoice', phrases: ['bill'] }] },
];

describe('normalizeText', () => {
  it('lower-cases, drops apostrophes and accents, and turns punctuation into single spaces', () => {
    expect(normalizeText("  Don't — CANCEL,my   Café!  ")).toBe('dont cancel my cafe');
  });
});

describe('matchCategories', () => {
  it('finds categories by whole-word phrases in rule order, with the phrase that matched', () => {
    const found = matchCategories(
      '[00:01.0 Customer] I would like to CANCEL my subscription, please.\n[00:04.0 Agent] I can offer a discount',
      rules,
    );
    expect(found).toEqual([
      {
        category: 'Retention',
        categories: [
          { name: 'Cancellation', matches: 'cancel my subscription' },
          { name: 'Offer', matches: 'discount' },
        ],
      },
    ]);
  });

  it('does not match inside longer words (bill is not billing)', () => {
    expect(matchCategories('the billing address', rules)).toEqual([]);
    expect(matchCategories('your next bill', rules).map((c) => c.category)).toEqual(['Billing']);
  });

  it('compares phrases normalized like the transcript (apostrophes, case)', () => {
    expect(matchCategories('my internet connection isnt working', rules)).toEqual([
      { category: 'Technical', categories: [{ name: 'Connectivity', matches: "Internet connection isn't working" }] },
    ]);
  });

  it('finds nothing without rules or without a transcript', () => {
    expect(matchCategories('cancel my subscription', [])).toEqual([]);
    expect(matchCategories('', rules)).toEqual([]);
  });
});
