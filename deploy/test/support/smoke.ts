import { eventually } from '@cc/testing';

/** An API client of the account the smoke runs as. */
export interface SmokeClient {
  clientId: string;
  clientSecret: string;
}

/** One step's outcome, kept for the failure message. */
export interface SmokeStep {
  step: string;
  status: number;
  body: unknown;
}

async function call(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body };
}

/**
 * The smoke through the gateway: a token, Register a provider, an interaction plan and route, Invoke
 * (retried while routing has not yet learnt the provider from Kafka), a statistics query. Returns every
 * step; throws naming the first that failed.
 */
export async function smoke(gatewayUrl: string, client: SmokeClient, suffix: string): Promise<SmokeStep[]> {
  const steps: SmokeStep[] = [];
  const expect = (step: string, r: { status: number; body: unknown }, ok: (s: number) => boolean) => {
    steps.push({ step, ...r });
    if (!ok(r.status)) throw new Error(`smoke step "${step}" answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  // One token per scope (the token endpoint is rate-limited per address, as in production).
  const tokens = new Map<string, string>();
  const token = async (scope: string) => {
    const cached = tokens.get(scope);
    if (cached) return cached;
    const r = await call(`${gatewayUrl}/Auth/connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: client.clientId,
        client_secret: client.clientSecret,
        scope,
      }).toString(),
    });
    const issued = (expect(`token (${scope})`, r, (s) => s === 200) as { access_token: string }).access_token;
    tokens.set(scope, issued);
    return issued;
  };
  const api = async (scope: string, method: string, path: string, json?: unknown) =>
    call(`${gatewayUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await token(scope)}`,
        ...(json !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });

  const provider = `Boot-${suffix}`;
  expect(
    'Register',
    await api('interactions:write', 'POST', '/interactions/Register', {
      provider,
      agentactionspermitted: { release: 1 },
    }),
    (s) => s === 201 || s === 200,
  );
  expect(
    'interaction plan',
    await api('admin', 'PUT', '/admin/interaction-plans/Boot%20Plan', {
      name: 'Boot Plan',
      applets: [{ type: 'Queue', name: 'Boot queue', virtualQueue: 'Boot' }],
    }),
    (s) => s === 201 || s === 200,
  );
  expect(
    'route',
    await api('admin', 'PUT', '/admin/routes/Boot', { name: 'Boot', interactionPlan: 'Boot Plan' }),
    (s) => s === 201 || s === 200,
  );
  const invoke = await eventually<{ status: number; body: unknown } | undefined>(
    async () => {
      const r = await api('interactions:write', 'POST', '/interactions/Invoke', {
        provider,
        requests: [{ requestId: `boot-${suffix}`, externalId: `boot-${suffix}`, route: 'Boot' }],
      });
      return (r.body as { code?: string }).code === 'INVOKE.UNKNOWN_PROVIDER' ? undefined : r;
    },
    { timeoutMs: 150_000, intervalMs: 500, what: `routing to learn provider ${provider} from Kafka` },
  );
  if (!invoke) throw new Error('Invoke gave no answer');
  expect('Invoke', invoke, (s) => s === 202);
  // Statistics is being built by others: reaching it through the gateway (no 5xx) is what is checked here.
  const start = new Date(Date.now() - 3_600_000).toISOString();
  expect(
    'statistics query',
    await api('stats', 'GET', `/stats/agent-activities?start=${encodeURIComponent(start)}`),
    (s) => s < 500,
  );
  return steps;
}
