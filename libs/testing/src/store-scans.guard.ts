/**
 * Jest setup for the integration tier: every query the code under test sends to the store must be
 * served from an index (ARCHITECTURE §7, "no scans that grow with history"). The queries of each test
 * file are recorded and, after its tests, explained by the store itself; a query shape that scans and
 * is not in store-scans.allow.ts fails the file, naming the shape, the source line and the fix.
 */
import { appendFileSync } from 'node:fs';
import { findScans, recordStoreQueries } from './store-scans';
import { allowedScans } from './store-scans.allow';

const recorder = recordStoreQueries();

afterAll(async () => {
  recorder.stop();
  const verdicts = await findScans(recorder.queries);
  const allowed = (v: (typeof verdicts)[number]) =>
    allowedScans.some((a) => `${v.query.shape} @ ${v.query.site.replace(/^.*\(|:\d+\)$/g, '')}`.includes(a.match));
  const scans = verdicts.filter((v) => v.scan && !allowed(v));
  // STORE_SCANS_REPORT=<file>: also append every scanning shape (allowed or not) as JSON lines.
  const report = process.env.STORE_SCANS_REPORT;
  for (const v of report ? verdicts.filter((x) => x.scan) : []) {
    appendFileSync(report as string, `${JSON.stringify({ shape: v.query.shape, site: v.query.site, why: v.why })}\n`);
  }
  if (scans.length === 0) return;
  throw new Error(
    [
      `${scans.length} store quer${scans.length === 1 ? 'y scans' : 'ies scan'} a collection (not served from an index):`,
      ...scans.map((v) => `  ${v.query.shape}\n    at ${v.query.site}: ${v.why}`),
      'Shape the query as an equality on indexed fields (FerretDB pushes down only top-level equality,',
      'not $in/$or/ranges/sort), serve it from memory, or, for a bounded or off-hot-path query, add its',
      'shape with the reason to libs/testing/src/store-scans.allow.ts.',
    ].join('\n'),
  );
});
