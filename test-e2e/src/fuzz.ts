import { execFile, spawn } from 'node:child_process';
import { createReadStream, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createClient, ok, type Scope } from '@cc/client';
import { root } from './suite';

/** What `./cc fuzz` and the e2e tier's short run need to fuzz a running suite through its gateway. */
export interface FuzzOptions {
  /** The gateway's base URL, e.g. http://127.0.0.1:8080. */
  gatewayUrl: string;
  /** Seconds schemathesis may spend on each API (its `--max-time`). */
  secondsPerApi: number;
  /** Test cases per operation and phase (its `--max-examples`). */
  examplesPerOperation: number;
  /** Concurrent schemathesis workers per API. */
  workers: number;
  /** Where reports go (one ndjson event log per API). */
  reportDir: string;
  /** The platform-admin client that creates the run's own account (the demo client locally). */
  operator: { clientId: string; clientSecret: string };
  /** v0 credentials, for the deprecated v0 API's own token flow. */
  v0: { accountKey: string; apiToken: string };
  /** Only these APIs (document names), when given. */
  only?: string[];
  /** Seed for reproducible runs. */
  seed?: number;
  log?: (line: string) => void;
}

/** One API's outcome: requests sent, 5xx answers, answers that do not match the document, and what failed. */
export interface ApiFuzzResult {
  api: string;
  operations: number;
  requests: number;
  serverErrors: number;
  schemaViolations: number;
  /** Short descriptions of the distinct failures (check, operation, status). */
  failures: string[];
  /** Errors of the run itself (schema could not be loaded, a crash). */
  errors: string[];
  /** No answer succeeded and its paths got the catch-all 404: the API's service is not in this suite (yet). */
  notServed: boolean;
  /** Internal errors of schemathesis itself on single cases (e.g. a regex it cannot generate from). */
  warnings: string[];
}

/** Checks whose failure means "the answer does not match the document": the schema violations reported. */
const conformanceChecks = [
  'status_code_conformance',
  'content_type_conformance',
  'response_headers_conformance',
  'response_schema_conformance',
];
const checks = ['not_a_server_error', ...conformanceChecks];

/** The OpenAPI documents the gateway serves: every `/docs/<name>.json` the /docs index links that is OpenAPI. */
export async function servedOpenApiDocuments(gatewayUrl: string): Promise<{ name: string; doc: OpenApiDoc }[]> {
  const index = await (await fetch(`${gatewayUrl}/docs`)).text();
  const names = [...new Set([...index.matchAll(/href="\/docs\/([A-Za-z0-9._-]+)\.json"/g)].map((m) => m[1] as string))];
  const out: { name: string; doc: OpenApiDoc }[] = [];
  for (const name of names) {
    const res = await fetch(`${gatewayUrl}/docs/${name}.json`);
    if (!res.ok) throw new Error(`GET /docs/${name}.json: ${res.status}`);
    const doc = (await res.json()) as OpenApiDoc;
    if (typeof doc.openapi === 'string') out.push({ name, doc });
  }
  return out;
}

/** The parts of an OpenAPI document the runner reads. */
export interface OpenApiDoc {
  openapi?: string;
  paths?: Record<string, Record<string, { security?: Record<string, string[]>[] } | unknown>>;
  components?: { securitySchemes?: Record<string, { type?: string; scheme?: string; flows?: unknown }> };
}

const methods = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

/**
 * Operations whose success answer is an endless `text/event-stream` (GET /events/stream): an accepted request never
 * completes, so schemathesis would only wait out its request timeout on them; they are left out of the fuzzing (the
 * e2e bad-input sweep still sends them every request that must be refused).
 */
export function streamingOperationIds(doc: OpenApiDoc): string[] {
  const ids: string[] = [];
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      if (!methods.has(method)) continue;
      const o = op as { operationId?: string; responses?: Record<string, { content?: Record<string, unknown> }> };
      if (o.operationId && Object.keys(o.responses?.['200']?.content ?? {}).includes('text/event-stream')) {
        ids.push(o.operationId);
      }
    }
  }
  return ids;
}

/** The operations of a document with the OAuth2 scope each requires ('' for none, 'v0' for the v0 token flow). */
export function operationScopes(doc: OpenApiDoc): { count: number; scopes: Set<string> } {
  const scopes = new Set<string>();
  let count = 0;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {})) {
      if (!methods.has(method)) continue;
      count++;
      const security = (op as { security?: Record<string, string[]>[] }).security ?? [];
      if (!security.length) scopes.add('');
      for (const requirement of security) {
        for (const [scheme, list] of Object.entries(requirement)) {
          const type = doc.components?.securitySchemes?.[scheme]?.type;
          if (type === 'oauth2' || type === 'openIdConnect') for (const s of list.length ? list : ['']) scopes.add(s);
          else scopes.add(`scheme:${scheme}`);
        }
      }
    }
  }
  return { count, scopes };
}

/**
 * Tokens of every scope for an account of the run's own, created through the operator API (@cc/client), so fuzzing
 * (which creates, changes and deletes whatever the documents allow) never touches the demo account's data.
 */
async function runTokens(opts: FuzzOptions, scopes: Set<string>): Promise<Map<string, string>> {
  const sdk = (creds: { clientId: string; clientSecret: string }) =>
    createClient({ baseUrl: opts.gatewayUrl, ...creds });
  const operator = sdk(opts.operator);
  const accountId = `fuzz-${Date.now().toString(36)}`;
  const { adminClient } = await ok(operator.admin.POST('/admin/accounts', { body: { accountId, name: 'Fuzz run' } }));
  const admin = sdk(adminClient);
  const tokens = new Map<string, string>([['admin', await admin.tokens.token('admin')]]);
  const appScopes = [...scopes].filter((s): s is Scope => s !== '' && s !== 'admin' && !s.startsWith('scheme:'));
  if (appScopes.length) {
    const app = await ok(admin.admin.POST('/admin/clients', { body: { name: 'Fuzz application', scopes: appScopes } }));
    const appSdk = sdk(app);
    for (const s of appScopes) tokens.set(s, await appSdk.tokens.token(s));
  }
  const basic = Buffer.from(`${opts.v0.accountKey}:${opts.v0.apiToken}`).toString('base64');
  // The v0 flow is optional here: a suite without v0 credentials is fuzzed without the v0 document's token.
  const v0 = await operator.v0Statistics
    .POST('/v0/oauth2/token', { headers: { authorization: `Basic ${basic}` } })
    .then((r) => r.data?.access_token)
    .catch(() => undefined);
  if (v0) tokens.set('v0', v0);
  return tokens;
}

/** The python of the virtualenv holding schemathesis (installed from PyPI on first use). */
export function schemathesisPython(): Promise<string> {
  return new Promise((ok, fail) => {
    execFile('bash', [resolve(root, 'scripts/schemathesis-env.sh')], { cwd: root }, (err, stdout, stderr) => {
      if (err) fail(new Error(`scripts/schemathesis-env.sh failed: ${stderr.slice(-2000)}`));
      else ok(stdout.trim().split('\n').pop() as string);
    });
  });
}

/** The token a document is fuzzed with: its operations' one scope (v0 documents: the v0 token), if any. */
function tokenForDocument(doc: OpenApiDoc, tokens: Map<string, string>): string | undefined {
  const { scopes } = operationScopes(doc);
  if ([...scopes].some((s) => s.startsWith('scheme:'))) return tokens.get('v0');
  const scoped = [...scopes].filter(Boolean);
  return scoped.length === 1
    ? tokens.get(scoped[0] as string)
    : scoped.length
      ? tokens.get(scoped[0] as string)
      : undefined;
}

/** Fuzzes every OpenAPI document the gateway serves, one schemathesis run per API, and returns each API's tally. */
export async function fuzzSuite(opts: FuzzOptions): Promise<ApiFuzzResult[]> {
  const log = opts.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const python = await schemathesisPython();
  const documents = (await servedOpenApiDocuments(opts.gatewayUrl)).filter(
    (d) => !opts.only || opts.only.includes(d.name),
  );
  const allScopes = new Set(documents.flatMap((d) => [...operationScopes(d.doc).scopes]));
  const tokens = await runTokens(opts, allScopes);
  rmSync(opts.reportDir, { recursive: true, force: true });
  mkdirSync(opts.reportDir, { recursive: true });
  // The token endpoints last: fuzzing them spends the per-IP token allowance the other runs need.
  documents.sort((a, b) => Number(a.name === 'auth') - Number(b.name === 'auth'));
  const results: ApiFuzzResult[] = [];
  for (const { name, doc } of documents) {
    log(`[fuzz] ${name}: ${operationScopes(doc).count} operations, up to ${opts.secondsPerApi} s`);
    results.push(await fuzzOne(python, name, doc, tokenForDocument(doc, tokens), opts));
  }
  return results;
}

async function fuzzOne(
  python: string,
  api: string,
  doc: OpenApiDoc,
  token: string | undefined,
  opts: FuzzOptions,
): Promise<ApiFuzzResult> {
  const events = resolve(opts.reportDir, `${api}.ndjson`);
  const args = [
    '-m',
    'schemathesis.cli',
    'run',
    `${opts.gatewayUrl}/docs/${api}.json`,
    '--url',
    opts.gatewayUrl,
    '--checks',
    checks.join(','),
    '--max-time',
    String(opts.secondsPerApi),
    '--max-examples',
    String(opts.examplesPerOperation),
    '--workers',
    String(opts.workers),
    '--phases',
    'examples,coverage,fuzzing',
    '--suppress-health-check',
    'all',
    '--generation-database',
    'none',
    '--request-timeout',
    '30',
    '--no-color',
    '--report',
    'ndjson',
    '--report-ndjson-path',
    events,
    ...(opts.seed === undefined ? [] : ['--seed', String(opts.seed)]),
    ...streamingOperationIds(doc).flatMap((id) => ['--exclude-operation-id', id]),
    ...(token ? ['--header', `Authorization: Bearer ${token}`] : []),
  ];
  const output: string[] = [];
  const code = await new Promise<number>((ok) => {
    const child = spawn(python, args, { cwd: opts.reportDir, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => output.push(line));
    }
    child.on('exit', (c) => ok(c ?? 1));
  });
  const result = await tally(api, events);
  result.operations = operationScopes(doc).count;
  // A non-zero exit with no failure and no internal error recorded means the run itself failed.
  if (code !== 0 && result.serverErrors + result.schemaViolations + result.warnings.length === 0) {
    result.errors.push(`schemathesis exited ${code}: ${output.slice(-30).join('\n')}`);
  }
  if (result.requests === 0) result.errors.push('no request was sent');
  return result;
}

/** Reads one API's ndjson event log: requests, 5xx answers and conformance failures. */
async function tally(api: string, events: string): Promise<ApiFuzzResult> {
  const result: ApiFuzzResult = {
    api,
    operations: 0,
    requests: 0,
    serverErrors: 0,
    schemaViolations: 0,
    notServed: false,
    failures: [],
    errors: [],
    warnings: [],
  };
  // Per distinct failure: how often, and for a 5xx the first answer's detail (to tell a fault from an outside cause).
  const failures = new Map<string, { n: number; sample?: string }>();
  let notFound = 0;
  let succeeded = 0;
  try {
    for await (const line of createInterface({ input: createReadStream(events) })) {
      if (line.startsWith('{"NonFatalError"')) {
        const e = (JSON.parse(line) as { NonFatalError: { label?: string; value?: { message?: string } } })
          .NonFatalError;
        result.warnings.push(`schemathesis internal error on ${e.label ?? '?'}: ${e.value?.message ?? ''}`);
        continue;
      }
      if (line.startsWith('{"FatalError"')) {
        result.errors.push(`schemathesis: ${line.slice(0, 500)}`);
        continue;
      }
      if (!line.includes('"ScenarioFinished"')) continue;
      const recorder = (JSON.parse(line) as { ScenarioFinished: { recorder: Recorder } }).ScenarioFinished.recorder;
      for (const [id, interaction] of Object.entries(recorder.interactions ?? {})) {
        result.requests++;
        const response = interaction.response;
        const status = response?.status_code ?? 0;
        // The kit's catch-all 404 ("No resource at GET /x"): no route of the service answered.
        if (status === 404 && /"detail":"No resource at /.test(decode(response?.content))) notFound++;
        if (status >= 200 && status < 300 && recorder.cases?.[id]?.value?.method !== 'OPTIONS') succeeded++;
        for (const check of recorder.checks?.[id] ?? []) {
          if (check.status === 'success' || check.status === 'skip') continue;
          const op = recorder.cases?.[id]?.value;
          const problem = status >= 500 ? problemOf(decode(response?.content)) : undefined;
          const label = `${check.name}: ${op?.method ?? '?'} ${op?.path ?? '?'} -> ${response?.status_code ?? 'no answer'}${problem?.code ? ` ${problem.code}` : ''} (${check.failure_info?.failure?.title ?? check.status})`;
          const seen = failures.get(label);
          failures.set(label, { n: (seen?.n ?? 0) + 1, sample: seen?.sample ?? problem?.detail });
          if (check.name === 'not_a_server_error') result.serverErrors++;
          else if (conformanceChecks.includes(check.name)) result.schemaViolations++;
        }
      }
    }
  } catch (err) {
    result.errors.push(`no report: ${(err as Error).message}`);
  }
  // No success at all and the catch-all 404 on its paths: the API's service is not part of the suite (yet).
  result.notServed = result.requests > 0 && succeeded === 0 && notFound > 0;
  result.failures = [...failures]
    .map(([label, f]) => `${label} x${f.n}${f.sample ? `, e.g. "${f.sample}"` : ''}`)
    .sort();
  return result;
}

/** What the ndjson log's ScenarioFinished events record (the parts read here). */
interface Recorder {
  cases?: Record<string, { value?: { method?: string; path?: string } }>;
  checks?: Record<string, { name: string; status: string; failure_info?: { failure?: { title?: string } } }[]>;
  interactions?: Record<string, { response?: { status_code?: number; content?: { $base64?: string } } | null }>;
}

/** A 5xx answer's problem code and detail (its first 200 characters), when the body is a problem. */
function problemOf(body: string): { code?: string; detail?: string } | undefined {
  try {
    const p = JSON.parse(body) as { code?: unknown; detail?: unknown };
    const detail = typeof p.detail === 'string' ? p.detail : undefined;
    return {
      code: typeof p.code === 'string' ? p.code : undefined,
      detail: detail && detail.length > 200 ? `${detail.slice(0, 200)}...` : detail,
    };
  } catch {
    return body ? { detail: body.slice(0, 200) } : undefined;
  }
}

function decode(content: { $base64?: string } | undefined): string {
  return content?.$base64 ? Buffer.from(content.$base64, 'base64').toString('utf8') : '';
}
