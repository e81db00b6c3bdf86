import type { Harness } from './harness';

/** A JSON response. */
export interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: test reads
  body: any;
  headers: Headers;
}

/** Calls one routing instance as one account, with a token per API. */
export class Api {
  private constructor(
    readonly base: string,
    readonly accountId: string,
    private readonly tokens: { invoke: string; admin: string; agent: string },
  ) {}

  static async for(h: Harness, base: string, accountId: string): Promise<Api> {
    return new Api(base, accountId, {
      invoke: await h.token(accountId, 'interactions:write'),
      admin: await h.token(accountId, 'admin'),
      agent: await h.token(accountId, 'agent'),
    });
  }

  /** The same account and tokens against another instance. */
  on(base: string): Api {
    return new Api(base, this.accountId, this.tokens);
  }

  async call(
    method: string,
    path: string,
    token: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  }

  invoke(body: unknown): Promise<Reply> {
    return this.call('POST', '/interactions/Invoke', this.tokens.invoke, body);
  }

  admin(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.call(method, `/admin${path}`, this.tokens.admin, body);
  }

  agent(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.call(method, `/agent-desktop/agents${path}`, this.tokens.agent, body);
  }

  /** Creates skills, a plan with a Queue applet and a route to it. */
  async setupRoute(
    route = 'Support',
    opts: { skills?: string[]; applets?: unknown[]; plan?: string } = {},
  ): Promise<void> {
    for (const skill of opts.skills ?? [])
      expectOk(await this.admin('PUT', `/skills/${encodeURIComponent(skill)}`, { name: skill }));
    const plan = opts.plan ?? `${route} Plan`;
    expectOk(
      await this.admin('PUT', `/interaction-plans/${encodeURIComponent(plan)}`, {
        name: plan,
        reportingGroup: 'Support',
        applets: opts.applets ?? [{ type: 'Queue', name: 'Support queue' }],
      }),
    );
    expectOk(await this.admin('PUT', `/routes/${encodeURIComponent(route)}`, { name: route, interactionPlan: plan }));
  }

  /** Creates an agent and returns its id. */
  async createAgent(
    username: string,
    opts: { skills?: string[]; capacity?: { calls: number; semiLive: number; nonLive: number }; ready?: boolean } = {},
  ): Promise<string> {
    const res = await this.admin('POST', '/agents', {
      username,
      skills: (opts.skills ?? []).map((name) => ({ name })),
      capacity: opts.capacity ?? { calls: 1, semiLive: 2, nonLive: 5 },
    });
    expectOk(res);
    const agentId = res.body.agentId as string;
    if (opts.ready) expectOk(await this.agent('PUT', `/${agentId}/presence`, { presence: 'Ready' }));
    return agentId;
  }
}

/** Fails with the response body when the status is not 2xx. */
export function expectOk(res: Reply): Reply {
  if (res.status < 200 || res.status >= 300) throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}
