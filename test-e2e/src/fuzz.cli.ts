/**
 * `./cc fuzz`: schemathesis against every OpenAPI document the running suite's gateway serves, with a token of the
 * right scope per API, bounded in time; prints per API the requests, 5xx answers and schema violations, and exits
 * non-zero when any API had one.
 *   CC_FUZZ_GATEWAY_URL   fuzz the suite behind this gateway (e.g. http://127.0.0.1:8080 after ./cc start);
 *                         unset: start the suite on the e2e tier's ports (18080-18086) as the e2e tier does, then stop it
 *   --seconds N           time budget per API (default 60)      --examples N  cases per operation and phase (default 50)
 *   --workers N           concurrent workers per API (default 2) --only a,b   only these APIs (document names)
 *   --seed N              reproducible generation
 */
import { resolve } from 'node:path';
import { type ApiFuzzResult, fuzzSuite } from './fuzz';
import globalSetup from './global-setup';
import { gatewayUrl as e2eGatewayUrl, root, stopSuite } from './suite';

function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

/** The per-API table and the totals line. */
export function formatResults(results: ApiFuzzResult[]): string {
  const rows = results.map((r) => [
    r.api,
    r.operations,
    r.requests,
    r.serverErrors,
    r.schemaViolations,
    r.notServed ? 'not served (no route answered; its service is not in the suite)' : '',
  ]);
  const header = ['API', 'operations', 'requests', '5xx', 'schema violations', ''];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells: (string | number)[]) => cells.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join('  ');
  const total = (k: 'requests' | 'serverErrors' | 'schemaViolations') => results.reduce((n, r) => n + r[k], 0);
  const details = results.flatMap((r) => [
    ...r.failures.map((f) => `  ${r.api}: ${f}`),
    ...r.errors.map((e) => `  ${r.api}: ERROR ${e}`),
    ...r.warnings.map((w) => `  ${r.api}: warning ${w}`),
  ]);
  return [
    line(header),
    ...rows.map(line),
    `total: ${total('requests')} requests, ${total('serverErrors')} 5xx, ${total('schemaViolations')} schema violations`,
    ...(details.length ? ['failures:', ...details] : []),
  ].join('\n');
}

async function main(): Promise<void> {
  const external = process.env.CC_FUZZ_GATEWAY_URL;
  if (!external) await globalSetup();
  try {
    const results = await fuzzSuite({
      gatewayUrl: external ?? e2eGatewayUrl,
      secondsPerApi: Number(option('seconds') ?? 60),
      examplesPerOperation: Number(option('examples') ?? 50),
      workers: Number(option('workers') ?? 2),
      reportDir: resolve(root, '.test-results/fuzz'),
      operator: {
        clientId: process.env.CC_DEMO_CLIENT_ID ?? 'demo-client',
        clientSecret: process.env.CC_DEMO_CLIENT_SECRET ?? 'demo-secret-change-me',
      },
      v0: {
        accountKey: process.env.CC_DEMO_V0_ACCOUNT_KEY ?? 'demo',
        apiToken: process.env.CC_DEMO_V0_API_TOKEN ?? 'demo-v0-token-change-me',
      },
      ...(option('only') ? { only: (option('only') as string).split(',') } : {}),
      ...(option('seed') ? { seed: Number(option('seed')) } : {}),
    });
    process.stdout.write(`${formatResults(results)}\n`);
    const bad = results.some((r) => (!r.notServed && (r.serverErrors || r.schemaViolations)) || r.errors.length);
    if (results.some((r) => r.notServed)) {
      process.stdout.write('note: APIs not served are fuzzed like the others once their service is in the suite\n');
    }
    process.exitCode = bad ? 1 : 0;
  } finally {
    if (!external) await stopSuite();
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack ?? err}\n`);
    process.exit(2);
  });
}
