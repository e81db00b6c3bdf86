import { resolve } from 'node:path';
import { type ApiFuzzResult, fuzzSuite, servedOpenApiDocuments } from '../src/fuzz';
import { formatResults } from '../src/fuzz.cli';
import { gatewayUrl, root } from '../src/suite';

// The short, bounded version of `./cc fuzz` (issue 19): schemathesis against every OpenAPI document the gateway
// serves, a few seconds per API. Any 5xx or any answer that does not match its document fails the tier. An API
// whose every answer is a generic 404 (its service is not part of the suite yet) is listed, not failed; once the
// service is merged its document is fuzzed like the others.
const secondsPerApi = Number(process.env.E2E_FUZZ_SECONDS ?? 8);
let results: ApiFuzzResult[] = [];

beforeAll(async () => {
  results = await fuzzSuite({
    gatewayUrl,
    secondsPerApi,
    examplesPerOperation: 10,
    workers: 2,
    seed: Number(process.env.E2E_FUZZ_SEED ?? 19),
    reportDir: resolve(root, '.test-results/e2e-fuzz'),
    operator: {
      clientId: process.env.CC_DEMO_CLIENT_ID ?? 'demo-client',
      clientSecret: process.env.CC_DEMO_CLIENT_SECRET ?? 'demo-secret-change-me',
    },
    v0: {
      accountKey: process.env.CC_DEMO_V0_ACCOUNT_KEY ?? 'demo',
      apiToken: process.env.CC_DEMO_V0_API_TOKEN ?? 'demo-v0-token-change-me',
    },
    log: () => undefined,
  });
  process.stdout.write(`[e2e] fuzz (${secondsPerApi} s per API):\n${formatResults(results)}\n`);
}, 900_000);

it('fuzzes every OpenAPI document the gateway serves', async () => {
  const served = (await servedOpenApiDocuments(gatewayUrl)).map((d) => d.name).sort();
  expect(served.length).toBeGreaterThan(0);
  expect(results.map((r) => r.api).sort()).toEqual(served);
  for (const r of results) expect({ api: r.api, errors: r.errors }).toEqual({ api: r.api, errors: [] });
  expect(results.filter((r) => !r.notServed).every((r) => r.requests > 0)).toBe(true);
});

it('answers no request with a 5xx and every request as its document says', () => {
  const bad = results
    .filter((r) => !r.notServed && (r.serverErrors || r.schemaViolations))
    .map((r) => ({
      api: r.api,
      serverErrors: r.serverErrors,
      schemaViolations: r.schemaViolations,
      failures: r.failures,
    }));
  expect(bad).toEqual([]);
});
