import type { InvokeResult } from '@cc/contracts';
import { type ApiResponse, createTenant, expectStatus, type Tenant, uniqueSuffix } from './gateway.client';
import {
  type NotificationItem,
  ProviderEndpoint,
  type ReceivedPost,
  verifyStandardWebhook,
} from './provider-endpoint.server';
import { until } from './until';

/** An agent of the scenario. */
export interface AgentRef {
  agentId: string;
  username: string;
}

/** One result of POST /interactions/Invoke (the contracts' type). */
export type { InvokeResult };

/** An offer ringing at an agent. */
export interface Offer {
  offerId: string;
  interactionId: string;
  interactionType: string;
  route: string | null;
  provider: string | null;
  linkeddata: Record<string, unknown>[];
  /** When the offer started ringing (ISO, exact). */
  offeredAt: string;
}

/** An interaction as the agent desktop shows it. */
export interface AgentInteraction {
  interactionId: string;
  externalId: string | null;
  provider: string | null;
  state: 'connected' | 'held' | 'wrap';
  /** When the interaction entered its current state (ISO, exact). */
  since: string;
  permissions: Record<string, boolean>;
}

/** A notification delivery of the notifier's admin API. */
export interface Delivery {
  deliveryId: string;
  provider: string;
  interactionId: string;
  notification: 'AssignToAgent' | 'Release';
  state: 'pending' | 'delivered' | 'failed' | 'dead';
  attempts: { status: number | null; error: string | null }[];
}

/** A problem+json body. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  errors?: { pointer: string; message: string }[];
}

/** The headers the provider registers; every notification must carry them. */
export const providerHeaders = { Authorization: 'Bearer e2e-provider-token', 'X-Tenant': 'e2e-tenant' };

/** How long a scenario waits for something asynchronous (events through Kafka, a delivery) by default. */
export const asyncTimeoutMs = 45_000;

/**
 * One contact center for a scenario, built only through the gateway: its own account, skills, an
 * interaction plan, two routes, two agents with different skills (alice: English, Printers, VIP; bob:
 * English, Billing), and a provider whose https endpoint is a real server of the test.
 */
export class ContactCenter {
  provider = '';
  signingSecret = '';
  readonly route = 'Support';
  readonly otherRoute = 'Escalations';
  alice!: AgentRef;
  bob!: AgentRef;

  private readonly started = Date.now();

  private constructor(
    readonly tenant: Tenant,
    readonly endpoint: ProviderEndpoint,
  ) {}

  /** With E2E_TRACE=1, prints how long the scenario took to reach this step (to find where time goes). */
  mark(step: string): void {
    if (process.env.E2E_TRACE === '1') {
      process.stdout.write(
        `[e2e] ${this.tenant.accountId} +${((Date.now() - this.started) / 1000).toFixed(1)}s ${step}\n`,
      );
    }
  }

  /** Creates the account, routing configuration and agents (not logged in yet) and starts the endpoint. */
  static async setup(label: string): Promise<ContactCenter> {
    const cc = new ContactCenter(await createTenant(label), await ProviderEndpoint.start());
    await cc.configureRouting();
    return cc;
  }

  /** A request with the token of `scope`, status checked. */
  async ok<T>(
    scope: Parameters<Tenant['api']>[0],
    method: string,
    path: string,
    expected: number | number[],
    json?: unknown,
  ): Promise<T> {
    const res = await this.tenant.api<T>(scope, { method, path, ...(json !== undefined ? { json } : {}) });
    return expectStatus(res, expected, `${method} ${path}`).body;
  }

  private async configureRouting(): Promise<void> {
    for (const skill of ['English', 'Printers', 'Billing', 'VIP', 'Spanish']) {
      await this.ok('admin', 'PUT', `/admin/skills/${skill}`, 201, { name: skill, description: `${skill} skill` });
    }
    await this.ok('admin', 'PUT', '/admin/interaction-plans/Support%20Plan', 201, {
      name: 'Support Plan',
      reportingGroup: 'E2E',
      applets: [
        { type: 'SetDataSource', name: 'Set priority', dataSource: 'Priority', fromProperty: 'Priority' },
        { type: 'SkillTagger', name: 'Tag English', skills: [{ name: 'English' }] },
        { type: 'Queue', name: 'Support queue', virtualQueue: 'Support' },
      ],
    });
    await this.ok('admin', 'PUT', `/admin/routes/${this.route}`, 201, {
      name: this.route,
      interactionPlan: 'Support Plan',
    });
    await this.ok('admin', 'PUT', `/admin/routes/${this.otherRoute}`, 201, {
      name: this.otherRoute,
      interactionPlan: 'Support Plan',
    });
    const capacity = { calls: 1, semiLive: 10, nonLive: 20 };
    this.alice = await this.ok<AgentRef>('admin', 'POST', '/admin/agents', 201, {
      username: `alice.${uniqueSuffix(2)}`,
      displayName: 'Alice',
      skills: [{ name: 'English' }, { name: 'Printers', level: 8 }, { name: 'VIP' }],
      capacity,
    });
    this.bob = await this.ok<AgentRef>('admin', 'POST', '/admin/agents', 201, {
      username: `bob.${uniqueSuffix(2)}`,
      displayName: 'Bob',
      skills: [{ name: 'English' }, { name: 'Billing' }],
      capacity,
    });
  }

  /**
   * Registers the provider with the test's https endpoint, the registered headers and the given
   * permissions; keeps the signing secret returned once at creation.
   */
  async register(
    permissions: Record<string, 0 | 1>,
    name = `Acme-${uniqueSuffix(3)}`,
  ): Promise<Record<string, unknown>> {
    const body = await this.ok<Record<string, unknown> & { signingSecret?: string }>(
      'interactions:write',
      'POST',
      '/interactions/Register',
      201,
      { provider: name, endpoint: this.endpoint.url(), headers: providerHeaders, agentactionspermitted: permissions },
    );
    this.provider = name;
    this.signingSecret = String(body.signingSecret ?? '');
    return body;
  }

  /** POST /interactions/Invoke, as sent (no retry). */
  invokeOnce(body: unknown): Promise<ApiResponse<{ results: InvokeResult[] } & Problem>> {
    return this.tenant.api('interactions:write', { method: 'POST', path: '/interactions/Invoke', json: body });
  }

  /**
   * Invoke, retried while routing does not know the provider yet (its registration travels through
   * Kafka): nothing is processed on that 422, so the retry is safe. Returns the 202 results.
   */
  async invoke(
    requests: Record<string, unknown>[],
    timeoutMs = 90_000,
    provider = this.provider,
  ): Promise<InvokeResult[]> {
    const res = await until(
      async () => {
        const r = await this.invokeOnce({ provider, requests });
        if (r.status === 422 && r.body.code === 'INVOKE.UNKNOWN_PROVIDER') return undefined;
        return r;
      },
      { timeoutMs, intervalMs: 200, what: `routing to know provider ${provider}` },
    );
    return expectStatus(res, 202, 'Invoke').body.results;
  }

  /** Sets an agent's presence through the agent desktop. */
  async presence(agent: AgentRef, presence: 'Ready' | 'Away' | 'LoggedOut'): Promise<void> {
    await this.ok('agent', 'PUT', `/agent-desktop/agents/${agent.agentId}/presence`, 200, { presence });
  }

  /** The offers ringing at an agent. */
  offers(agent: AgentRef): Promise<Offer[]> {
    return this.ok<Offer[]>('agent', 'GET', `/agent-desktop/agents/${agent.agentId}/offers`, 200);
  }

  /** Waits until `interactionId` is offered to `agent`. */
  async offerOf(agent: AgentRef, interactionId: string, timeoutMs = asyncTimeoutMs): Promise<Offer> {
    try {
      return await until(async () => (await this.offers(agent)).find((o) => o.interactionId === interactionId), {
        timeoutMs,
        intervalMs: 150,
        what: `an offer of ${interactionId} to ${agent.username}`,
      });
    } catch (err) {
      // What routing decided about it, so a failure says why (no eligible agent, offered elsewhere, unknown).
      const trace = await this.tenant.api('admin', {
        method: 'GET',
        path: `/admin/interactions/${interactionId}/trace`,
      });
      const elsewhere = await Promise.all([this.alice, this.bob].map((a) => this.offers(a).catch(() => [])));
      const held = await Promise.all([this.alice, this.bob].map((a) => this.interactions(a).catch(() => [])));
      throw new Error(
        `${(err as Error).message}\nrouting trace: ${trace.status} ${trace.text.slice(-1500)}\noffers now: ${JSON.stringify(elsewhere.map((o) => o.map((x) => x.interactionId)))}\nassigned now: ${JSON.stringify(held.map((o) => o.map((x) => `${x.interactionId}:${x.state}`)))}`,
      );
    }
  }

  /** The interactions assigned to an agent. */
  interactions(agent: AgentRef): Promise<AgentInteraction[]> {
    return this.ok<AgentInteraction[]>('agent', 'GET', `/agent-desktop/agents/${agent.agentId}/interactions`, 200);
  }

  /** Accepts an offer (200, the interaction connected). */
  accept(agent: AgentRef, offer: Offer): Promise<AgentInteraction> {
    return this.ok('agent', 'POST', `/agent-desktop/agents/${agent.agentId}/offers/${offer.offerId}/accept`, 200);
  }

  /** An agent action on an interaction, answer unchecked. */
  act(
    agent: AgentRef,
    interactionId: string,
    action: 'hold' | 'retrieve' | 'release' | 'end-wrap' | 'transfer',
    json?: unknown,
  ): Promise<ApiResponse<AgentInteraction & Problem>> {
    return this.tenant.api('agent', {
      method: 'POST',
      path: `/agent-desktop/agents/${agent.agentId}/interactions/${interactionId}/${action}`,
      ...(json !== undefined ? { json } : {}),
    });
  }

  /** Hold, retrieve, release and end wrap, checking each state. */
  async handle(agent: AgentRef, interactionId: string, withHold = true): Promise<void> {
    if (withHold) {
      const held = expectStatus(await this.act(agent, interactionId, 'hold'), 200, `hold ${interactionId}`);
      if (held.body.state !== 'held') throw new Error(`hold: state ${held.body.state}`);
      const back = expectStatus(await this.act(agent, interactionId, 'retrieve'), 200, `retrieve ${interactionId}`);
      if (back.body.state !== 'connected') throw new Error(`retrieve: state ${back.body.state}`);
    }
    const wrap = expectStatus(await this.act(agent, interactionId, 'release'), 200, `release ${interactionId}`);
    if (wrap.body.state !== 'wrap') throw new Error(`release: state ${wrap.body.state}`);
    expectStatus(await this.act(agent, interactionId, 'end-wrap'), 204, `end-wrap ${interactionId}`);
  }

  /** Every delivery of this scenario's provider in the notifier's delivery log. */
  async deliveries(): Promise<Delivery[]> {
    const page = await this.ok<{ items: Delivery[] }>(
      'admin',
      'GET',
      `/admin/deliveries?provider=${encodeURIComponent(this.provider)}&limit=1000`,
      200,
    );
    return page.items;
  }

  /** Waits until the endpoint received a notification of `kind` about the interaction; returns the first one. */
  async notification(
    interactionId: string,
    kind: NotificationItem['notification'],
    timeoutMs = asyncTimeoutMs,
  ): Promise<{ item: NotificationItem; post: ReceivedPost }> {
    return until(() => this.endpoint.of(interactionId, kind)[0], {
      timeoutMs,
      intervalMs: 150,
      what: `${kind} of ${interactionId} at the provider endpoint (received so far: ${this.endpoint.received.length})`,
    });
  }

  /**
   * The closing check of every scenario: each accepted interaction reached its end (AssignToAgent, then
   * Release, received by the endpoint with the registered headers and a valid signature; no agent holds
   * it any more), every delivery in the notifier's log was delivered and arrived at least once (same
   * webhook-id and body on duplicates), and nothing arrived that the log does not know.
   */
  async assertNothingLost(accepted: string[], timeoutMs = 90_000): Promise<void> {
    for (const id of accepted) {
      await this.notification(id, 'AssignToAgent', timeoutMs);
      await this.notification(id, 'Release', timeoutMs);
    }
    const deliveries = await until(
      async () => {
        const all = await this.deliveries();
        return all.length >= accepted.length * 2 && all.every((d) => d.state === 'delivered') ? all : undefined;
      },
      { timeoutMs, intervalMs: 300, what: 'every delivery of the provider delivered' },
    );
    const problems: string[] = [];
    for (const id of accepted) {
      for (const kind of ['AssignToAgent', 'Release'] as const) {
        const logged = deliveries.filter((d) => d.interactionId === id && d.notification === kind);
        if (logged.length !== 1) problems.push(`${kind} of ${id}: ${logged.length} deliveries in the log (want 1)`);
        const received = this.endpoint.of(id, kind);
        const ids = new Set(received.map((r) => r.post.webhookId));
        if (ids.size !== 1) problems.push(`${kind} of ${id}: received with webhook-ids ${[...ids].join(', ')}`);
        if (new Set(received.map((r) => r.post.raw)).size > 1) problems.push(`${kind} of ${id}: duplicates differ`);
        for (const { item, post } of received) {
          if (item.notificationid !== post.webhookId) problems.push(`${kind} of ${id}: notificationid ≠ webhook-id`);
          const bad = verifyStandardWebhook(this.signingSecret, post);
          if (bad) problems.push(`${kind} of ${id}: signature: ${bad}`);
          for (const [name, value] of Object.entries(providerHeaders)) {
            if (post.headers[name.toLowerCase()] !== value) problems.push(`${kind} of ${id}: header ${name} missing`);
          }
        }
        const first = received[0];
        const assignAt = this.endpoint.of(id, 'AssignToAgent')[0]?.post.at ?? 0;
        if (kind === 'Release' && first && first.post.at < assignAt) problems.push(`Release of ${id} before assign`);
      }
    }
    const logIds = new Set(deliveries.map((d) => d.deliveryId));
    for (const post of this.endpoint.received) {
      if (!logIds.has(post.webhookId))
        problems.push(`received webhook-id ${post.webhookId} is not in the delivery log`);
    }
    for (const d of deliveries) {
      if (!this.endpoint.received.some((p) => p.webhookId === d.deliveryId)) {
        problems.push(`delivery ${d.deliveryId} (${d.notification}) is marked delivered but never arrived`);
      }
    }
    for (const agent of [this.alice, this.bob]) {
      const left = (await this.interactions(agent)).filter((i) => accepted.includes(i.interactionId));
      if (left.length) problems.push(`${agent.username} still has ${left.map((i) => i.interactionId).join(', ')}`);
    }
    if (problems.length) throw new Error(`nothing-lost check failed:\n- ${problems.join('\n- ')}`);
  }

  /** Logs the agents out and stops the endpoint. */
  async close(): Promise<void> {
    for (const agent of [this.alice, this.bob]) {
      if (agent) await this.presence(agent, 'LoggedOut').catch(() => undefined);
    }
    await this.endpoint.close();
  }
}

/** A dispatch request for the scenario's route. */
export function dispatch(
  requestId: string | null,
  externalId: string | null,
  routingdata?: Record<string, unknown>,
  route = 'Support',
): Record<string, unknown> {
  return {
    ...(requestId ? { requestId } : {}),
    ...(externalId ? { externalId } : {}),
    route,
    linkeddata: [{ type: 'interactionproperty', key: 'Priority', value: 'High' }],
    ...(routingdata ? { routingdata } : {}),
  };
}
