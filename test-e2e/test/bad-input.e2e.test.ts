import { appendFileSync } from 'node:fs';
import { openApiDocuments } from '@cc/contracts';
import { type Case, casesOf, type Operation, operations, v0AccountKey } from '../src/bad-input.cases';
import {
  type ApiResponse,
  call,
  createTenant,
  demoClient,
  expectStatus,
  type Scope,
  type Tenant,
  tokenFor,
} from '../src/gateway.client';
import { waitReady } from '../src/suite';

// The bad-input sweep: every operation of every OpenAPI document @cc/contracts exports, with malformed
// JSON, wrong content types, wrong types, missing and extra fields, oversize values and bodies, `$`-operator
// and dotted keys, long and odd unicode, invalid GUIDs and dates, in path, query and body. Each breaking
// request gets a 4xx problem+json (token endpoints: an RFC 6749 body), nothing gets a 5xx, and the suite
// keeps serving afterwards.

const concurrency = 8;
const allOperations = operations();
const allCases = allOperations.flatMap(casesOf);
/** One test per document and request part that has cases: [document, part]. */
const groups = [...new Set(allCases.map((c) => `${c.op.doc}\n${c.part}`))].map(
  (g) => g.split('\n') as [string, string],
);
let tenant: Tenant;
let v0Token: string;
const started = Date.now();
const stats = { cases: 0, reject: 0, tolerated: 0, rateLimited: 0 };

beforeAll(async () => {
  tenant = await createTenant('sweep', [
    'interactions:write',
    'agent',
    'stats',
    'interaction-content:read',
    'interaction-content:write',
  ]);
  const v0 = expectStatus(
    await call<{ access_token: string }>({
      method: 'POST',
      path: '/v0/oauth2/token',
      headers: {
        authorization: `Basic ${Buffer.from(`${v0AccountKey}:${process.env.CC_DEMO_V0_API_TOKEN ?? 'demo-v0-token-change-me'}`).toString('base64')}`,
      },
    }),
    200,
    'v0 token',
  );
  v0Token = v0.body.access_token;
});

afterAll(() => {
  process.stdout.write(
    `[e2e] bad-input sweep: ${stats.cases} requests over ${allOperations.length} operations (${stats.reject} must be refused, ${stats.tolerated} contract-valid oddities must not fail) in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
});

async function tokenOf(op: Operation): Promise<string | undefined> {
  switch (op.auth.kind) {
    case 'scope':
      return tenant.token(op.auth.scope as Scope);
    case 'operator':
      return tokenFor(demoClient, 'admin');
    case 'v0':
      return v0Token;
    default:
      return undefined;
  }
}

/** Why the answer to a case is wrong, or null. */
function verdict(c: Case, res: ApiResponse<Record<string, unknown>>): string | null {
  if (res.status >= 500) return `${res.status} (a server error)`;
  if (c.expect === 'reject' && res.status < 400) return `${res.status}: accepted`;
  if (res.status < 400) return null;
  const problem = /^application\/problem\+json/.test(res.contentType);
  const oauthError =
    Boolean(c.op.body?.form) &&
    (res.status === 400 || res.status === 401) &&
    /^application\/json/.test(res.contentType) &&
    typeof res.body?.error === 'string';
  if (!problem && !oauthError) return `${res.status} with Content-Type "${res.contentType}"`;
  if (problem && res.body?.status !== res.status)
    return `${res.status} with a problem whose status is ${String(res.body?.status)}`;
  return null;
}

async function run(c: Case): Promise<string | null> {
  const token = await tokenOf(c.op);
  let res: ApiResponse<Record<string, unknown>> | undefined;
  // A server that answers a bad request early (413) and closes can meet the client still writing the body: the
  // write fails (EPIPE, ECONNRESET) and the answer already sent is lost with the socket. Bad input changes nothing,
  // so such a case is sent again (twice at most) to read its answer; any other failure to answer fails it at once.
  for (let attempt = 1; !res; attempt++) {
    try {
      res = await call<Record<string, unknown>>({
        method: c.method,
        path: c.path,
        ...(token ? { token } : {}),
        ...(c.body !== undefined ? { body: c.body, contentType: c.contentType ?? 'application/json' } : {}),
        ...(c.headers ? { headers: c.headers } : {}),
        ...(c.chunked ? { chunked: true } : {}),
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (attempt < 3 && (code === 'EPIPE' || code === 'ECONNRESET')) continue;
      return `no answer: ${(err as Error).message}`;
    }
  }
  stats.cases++;
  if (c.expect === 'reject') stats.reject++;
  else stats.tolerated++;
  if (res.status === 429) stats.rateLimited++;
  if (process.env.E2E_SWEEP_DUMP) {
    // Every case and its answer, one JSON line each, for reading what the sweep saw.
    const line = { op: c.op.operationId, what: c.what, expect: c.expect, status: res.status, code: res.body?.code };
    appendFileSync(process.env.E2E_SWEEP_DUMP, `${JSON.stringify(line)}\n`);
  }
  const bad = verdict(c, res);
  return bad ? `${c.method} ${c.path.slice(0, 140)} [${c.what}] → ${bad}: ${res.text.slice(0, 300)}` : null;
}

async function sweep(cases: Case[]): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++] as Case;
      const bad = await run(c);
      if (bad) failures.push(bad);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failures;
}

describe('bad-input sweep over every public endpoint', () => {
  it('covers every operation of every OpenAPI document', () => {
    const documented = Object.values(openApiDocuments).reduce(
      (n, doc) =>
        n +
        Object.values((doc as { paths: Record<string, object> }).paths).reduce(
          (m, item) => m + Object.keys(item).length,
          0,
        ),
      0,
    );
    expect(allOperations).toHaveLength(documented);
    const withInput = allOperations.filter((op) => op.pathParams.length || op.queryParams.length || op.body);
    for (const op of withInput) expect(casesOf(op).length).toBeGreaterThan(0);
  });

  it.each(groups)('the %s API, bad %s: 4xx problem+json, never a server error', async (doc, part) => {
    const cases = allCases.filter((c) => c.op.doc === doc && c.part === part);
    const failures = await sweep(cases);
    expect(stats.rateLimited).toBe(0);
    if (failures.length) {
      throw new Error(`${failures.length} of ${cases.length} cases failed:\n${failures.slice(0, 60).join('\n')}`);
    }
  });

  it('keeps serving afterwards: readiness and a happy path', async () => {
    const ready = await call<{ status: string }>({ method: 'GET', path: '/readyz' });
    expect(ready.status).toBe(200);
    await waitReady(undefined, 30_000);
    const after = await createTenant('after-sweep');
    const account = expectStatus(
      await after.api<{ accountId: string }>('admin', { method: 'GET', path: '/admin/account' }),
      200,
      'GET /admin/account',
    );
    expect(account.body.accountId).toBe(after.accountId);
    expectStatus(
      await after.api('admin', { method: 'PUT', path: '/admin/skills/Printers', json: { name: 'Printers' } }),
      201,
      'PUT skill',
    );
    const skills = expectStatus(
      await after.api<{ items: { name: string }[] }>('admin', { method: 'GET', path: '/admin/skills' }),
      200,
      'GET skills',
    );
    expect(skills.body.items.map((s) => s.name)).toEqual(['Printers']);
  });
});
