import { type AgentActivityEvent, activityKey, activityWrites, toActivityView } from '../../src/domain/agent-activity';
import { hourOf } from '../../src/domain/time';
import { defined } from '../builders/interaction-events';

const agentId = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const channel = { guid: 'cccccccc-cccc-4ccc-8ccc-cccccccccc01' };
const interaction = {
  guid: '11111111-1111-4111-8111-111111111111',
  medium: 'Phone',
  mediumManager: 'CC',
  direction: 'Inbound',
  interactionType: 'live',
};
const t = (s: string) => `2024-05-01T${s}.000Z`;

describe('activityWrites', () => {
  it('closes the previous presence and opens the new one', () => {
    const event: AgentActivityEvent = {
      type: 'agent-activity.presence-changed',
      data: {
        agentId,
        occurredAt: t('08:10:00'),
        presence: 'Away',
        eligibleForRouting: false,
        reason: 'Break',
        previous: {
          presence: 'Ready',
          eligibleForRouting: true,
          reason: null,
          startedAt: t('08:00:00'),
          durationMs: 600_000,
        },
      },
    };
    const [closed, open] = activityWrites(event);
    expect(closed).toMatchObject({
      kind: 'closed',
      hour: hourOf(Date.parse(t('08:00:00'))),
      item: {
        type: 'Presence',
        category: 'Ready',
        name: 'Ready',
        eligibleForRouting: true,
        reason: null,
        end: Date.parse(t('08:10:00')),
      },
    });
    expect(open).toMatchObject({
      kind: 'open',
      item: {
        type: 'Presence',
        name: 'Away',
        eligibleForRouting: false,
        reason: 'Break',
        start: Date.parse(t('08:10:00')),
        end: null,
      },
    });
    expect(toActivityView(defined(closed).item, 0)).toEqual({
      agentId,
      type: 'Presence',
      category: 'Ready',
      name: 'Ready',
      eligibleForRouting: true,
      start: '2024-05-01T08:00:00.000Z',
      status: null,
      duration: 600_000,
      reason: null,
      interaction: null,
      channel: null,
      workload: null,
    });
  });

  it('writes only the new state at the first login', () => {
    const writes = activityWrites({
      type: 'agent-activity.presence-changed',
      data: {
        agentId,
        occurredAt: t('08:00:00'),
        presence: 'Ready',
        eligibleForRouting: true,
        reason: null,
        previous: null,
      },
    });
    expect(writes.map((w) => w.kind)).toEqual(['open']);
  });

  it('closes and opens workload items with their counts', () => {
    const writes = activityWrites({
      type: 'agent-activity.workload-changed',
      data: {
        agentId,
        occurredAt: t('08:05:00'),
        workload: { calls: 1, semiLive: 0, nonLive: 0 },
        previous: { workload: { calls: 0, semiLive: 0, nonLive: 0 }, startedAt: t('08:00:00'), durationMs: 300_000 },
      },
    });
    expect(writes.map((w) => [w.kind, w.item.type, w.item.workload?.calls, w.item.category])).toEqual([
      ['closed', 'Workload', 0, null],
      ['open', 'Workload', 1, null],
    ]);
  });

  it('opens an Interaction item InProgress and closes it Completed under the same key', () => {
    const [open] = activityWrites({
      type: 'agent-activity.segment-started',
      data: { agentId, segment: 'Connected', startedAt: t('08:01:00'), interaction, channel },
    });
    const [closed] = activityWrites({
      type: 'agent-activity.segment-ended',
      data: {
        agentId,
        segment: 'Connected',
        startedAt: t('08:01:00'),
        durationMs: 65_432,
        status: 'Completed',
        interaction,
        channel,
      },
    });
    expect(defined(open).key).toBe(defined(closed).key);
    expect(defined(open).item).toMatchObject({ status: 'InProgress', end: null, category: 'Connected' });
    const view = toActivityView(defined(closed).item, 0);
    expect(view).toMatchObject({
      type: 'Interaction',
      category: 'Connected',
      name: null,
      eligibleForRouting: null,
      status: 'Completed',
      duration: 65_432,
      interaction: { guid: interaction.guid, medium: 'Phone', mediumManager: 'CC', direction: 'Inbound' },
      channel,
      workload: null,
    });
    expect(view.interaction).not.toHaveProperty('interactionType');
    // A running item lasts until now.
    expect(toActivityView(defined(open).item, Date.parse(t('08:02:00'))).duration).toBe(60_000);
  });

  it('skips HeldExternalParty, which runs inside Connected', () => {
    expect(
      activityWrites({
        type: 'agent-activity.segment-started',
        data: { agentId, segment: 'HeldExternalParty', startedAt: t('08:01:00'), interaction, channel },
      }),
    ).toEqual([]);
  });

  it('keys segments of the same start apart by category and channel', () => {
    const base = { agentId, type: 'Interaction' as const, start: 1 };
    expect(activityKey({ ...base, category: 'Ringing', channel })).not.toBe(
      activityKey({ ...base, category: 'Connected', channel }),
    );
    expect(activityKey({ ...base, category: 'Ringing', channel })).not.toContain('.');
  });
});
