import type { LoggedEvent } from '../../src/domain/interaction-record';

/** Fixed ids and times for building one interaction's events in tests. */
export const ids = {
  interaction: '11111111-1111-4111-8111-111111111111',
  conversation: '22222222-2222-4222-8222-222222222222',
  agentA: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  agentB: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
  channelA: 'cccccccc-cccc-4ccc-8ccc-cccccccccc01',
  channelB: 'cccccccc-cccc-4ccc-8ccc-cccccccccc02',
  channelC: 'cccccccc-cccc-4ccc-8ccc-cccccccccc03',
  offer: 'dddddddd-dddd-4ddd-8ddd-dddddddddddd',
};

/** The interaction's start (queued), 2024-05-01T08:00:00.000Z. */
export const t0 = Date.parse('2024-05-01T08:00:00.000Z');

/** A builder of one interaction's events, in order, with consecutive sequences; `at` is ms after t0. */
export class InteractionEvents {
  readonly events: LoggedEvent[] = [];

  private add(type: string, at: number, data: Record<string, unknown>): this {
    this.events.push({
      type,
      sequence: this.events.length + 1,
      data: {
        interactionId: ids.interaction,
        conversationId: ids.conversation,
        externalId: 'ext-1',
        provider: 'crm',
        interactionType: 'live',
        medium: 'Phone',
        mediumManager: 'CC',
        direction: 'Inbound',
        occurredAt: new Date(t0 + at).toISOString(),
        sequence: this.events.length + 1,
        ...data,
      },
    });
    return this;
  }

  queued(at = 0): this {
    return this.add('interaction.queued', at, {
      requestId: 'r1',
      route: 'sales',
      interactionPlan: 'plan-sales',
      reportingGroup: 'group-1',
      serviceName: 'sales',
      connectTo: null,
      connectFrom: '+441234567890',
      interactionPlanMapping: { addressName: 'sales', mappingName: 'sales', interactionPlanName: 'plan-sales' },
      linkeddata: [],
      skills: [],
      personalQueue: null,
    });
  }

  applet(
    at: number,
    type: string,
    name: string,
    durationMs = 0,
    extra: { dataSource?: unknown; queue?: unknown; plan?: string } = {},
  ): this {
    return this.add('interaction.applet-executed', at + durationMs, {
      interactionPlan: extra.plan ?? 'plan-sales',
      reportingGroup: 'group-1',
      applet: { name, type },
      startedAt: new Date(t0 + at).toISOString(),
      durationMs,
      dataSource: extra.dataSource ?? null,
      queue: extra.queue ?? null,
    });
  }

  queueLeft(at: number, enteredAt: number, result: string): this {
    return this.applet(enteredAt, 'Queue', 'Queue 1', at - enteredAt, {
      queue: { virtualQueues: ['vq-sales'], presentedSkills: ['english'], result },
    });
  }

  private agent(agent: 'A' | 'B', channel: string) {
    return {
      agentId: agent === 'A' ? ids.agentA : ids.agentB,
      agentUsername: agent === 'A' ? 'alice' : 'bob',
      channelId: channel,
    };
  }

  offered(at: number, agent: 'A' | 'B', channel: string): this {
    return this.add('interaction.offered', at, {
      ...this.agent(agent, channel),
      offerId: ids.offer,
      expiresAt: new Date(t0 + at + 20_000).toISOString(),
      rule: 'longest-idle',
      attempt: 1,
    });
  }

  assigned(at: number, agent: 'A' | 'B', channel: string, ringingMs: number): this {
    return this.add('interaction.assigned', at, { ...this.agent(agent, channel), offerId: ids.offer, ringingMs });
  }

  rejected(at: number, agent: 'A' | 'B', channel: string, reason: 'rejected' | 'timed-out'): this {
    return this.add('interaction.rejected', at, {
      ...this.agent(agent, channel),
      offerId: ids.offer,
      ringingMs: 1000,
      reason,
      outcome: 'Unexpected',
    });
  }

  held(at: number, agent: 'A' | 'B', channel: string): this {
    return this.add('interaction.held', at, this.agent(agent, channel));
  }

  retrieved(at: number, agent: 'A' | 'B', channel: string, heldMs: number): this {
    return this.add('interaction.retrieved', at, { ...this.agent(agent, channel), heldMs });
  }

  transferred(at: number, agent: 'A' | 'B', channel: string, to: 'B'): this {
    return this.add('interaction.transferred', at, {
      ...this.agent(agent, channel),
      target: { kind: 'agent', agentUsername: to === 'B' ? 'bob' : 'alice' },
    });
  }

  wrapStarted(at: number, agent: 'A' | 'B', channel: string, connectedMs: number): this {
    return this.add('interaction.wrap-started', at, { ...this.agent(agent, channel), connectedMs });
  }

  released(at: number, by: 'agent' | 'api' | 'system', agent?: 'A' | 'B', channel?: string): this {
    const ref = agent && channel ? this.agent(agent, channel) : { agentId: null, agentUsername: null, channelId: null };
    return this.add('interaction.released', at, {
      releasedBy: by,
      ...ref,
      previousState: by === 'agent' ? 'connected' : 'queued',
      endReason: 'Released',
      durationMs: at,
    });
  }

  wrapEnded(at: number, agent: 'A' | 'B', channel: string, wrapMs: number): this {
    return this.add('interaction.wrap-ended', at, { ...this.agent(agent, channel), wrapMs });
  }
}

/** The value, or a failed test when it is missing (instead of non-null assertions). */
export function defined<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('expected a value');
  return value;
}
