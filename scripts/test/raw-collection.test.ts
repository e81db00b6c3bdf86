import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

// Account data is reached through @cc/store's scoped path (forAccount / forAccounts / crossAccount): a raw
// `model.collection` or `db.collection(...)` elsewhere would bypass the tenancy guard. The layer rules cannot see
// method calls, so this check greps production sources. `.collection.name` (a label for logs and metrics) is fine.
const root = resolve(__dirname, '../..');
const raw = /\.collection\b(?!\.name\b)/;

/** The only other holders of raw access, each with how many uses and why. */
const allowed: Record<string, { uses: number; why: string }> = {
  'libs/bus/src/outbox.ts': {
    uses: 2,
    why: 'the outbox relay addresses aggregates by _id across accounts, and writes the dead letters of entries nobody can publish (its own bookkeeping, each naming its document); @cc/bus sits beside @cc/store, not on it',
  },
  'services/summaries/src/store/summaries.repository.ts': {
    uses: 1,
    why: 'the summary log generations are collections named at run time (no model); each entry spans accounts',
  },
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** `path: line` of each raw use in code (comments are skipped). */
export function rawUses(file: string): number[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => (/^\s*(\/\/|\*|\/\*)/.test(line) || !raw.test(line) ? [] : [i + 1]));
}

it('reaches collections raw only through the store library (and the listed exceptions)', () => {
  const found: Record<string, number[]> = {};
  for (const top of ['libs', 'services'])
    for (const pkg of readdirSync(join(root, top))) {
      const src = join(root, top, pkg, 'src');
      // The store library is the access path; the testing library inspects stores for tests.
      if (`${top}/${pkg}` === 'libs/store' || `${top}/${pkg}` === 'libs/testing') continue;
      let files: string[] = [];
      try {
        files = sources(src);
      } catch {
        continue; // no src folder
      }
      for (const f of files) {
        const lines = rawUses(f);
        if (lines.length) found[relative(root, f)] = lines;
      }
    }
  const unexpected = Object.entries(found).filter(([f, lines]) => lines.length > (allowed[f]?.uses ?? 0));
  expect(unexpected.map(([f, lines]) => `${f}: ${lines.join(', ')}`)).toEqual([]);
});

it('sees a raw use when there is one (the check can fail)', () => {
  expect(raw.test('await this.models.agents.collection.insertOne(doc)')).toBe(true);
  expect(raw.test('const c = model.collection as unknown as mongo.Collection;')).toBe(true);
  expect(raw.test('this.db.collection(`log`)')).toBe(true);
  expect(raw.test('{ collection: model.collection.name }')).toBe(false);
  expect(rawUses(__filename).length).toBeGreaterThan(0); // this file's own examples above
});
