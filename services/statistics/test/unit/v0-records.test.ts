import type { ActivityItem } from '../../src/domain/agent-activity';
import { buildInteractionRecord } from '../../src/domain/interaction-record';
import { hms } from '../../src/domain/time';
import { toV0AgentStates, toV0InboundCalls, toV0OutboundCalls } from '../../src/domain/v0-records';
import { pageOf, windowOf } from '../../src/domain/window';
import { defined, InteractionEvents, ids, t0 } from '../builders/interaction-events';

const call = () =>
  defined(
    buildInteractionRecord(
      new InteractionEvents()
        .queued(0)
        .applet(0, 'Announcement', 'Welcome', 3000)
        .offered(5000, 'A', ids.channelA)
        .queueLeft(6000, 3000, 'Delivered')
        .assigned(6000, 'A', ids.channelA, 1000)
        .wrapStarted(66000, 'A', ids.channelA, 60000)
        .released(66000, 'agent', 'A', ids.channelA)
        .wrapEnded(70000, 'A', ids.channelA, 4000).events,
      t0 + 3_600_000,
    ),
  );

describe('v0 records', () => {
  it('formats durations hh:mm:ss', () => {
    expect(hms(0)).toBe('00:00:00');
    expect(hms(65_999)).toBe('00:01:05');
    expect(hms(100 * 3_600_000)).toBe('100:00:00');
  });

  it('turns an inbound record into Start, NewApplet, Queue, ACDDelivery and End rows', () => {
    const rows = toV0InboundCalls([call()]);
    expect(rows.map((r) => [r.sequence, r.event, r.appletName, r.duration])).toEqual([
      [1, 'Start', null, '00:00:00'],
      [2, 'NewApplet', 'Welcome', '00:00:03'],
      [3, 'Queue', 'Queue 1', '00:00:03'],
      [4, 'ACDDelivery', null, '00:01:00'],
      [5, 'End', null, '00:00:00'],
    ]);
    expect(rows[3]).toMatchObject({
      callGuid: ids.interaction,
      serviceName: 'sales',
      connectedTo: 'sales',
      origin: '+441234567890',
      stateChangedAt: '2024-05-01T08:00:06.000Z',
      state: 'Completed',
      ringDuration: '00:00:01',
      additionalParameters: { agentId: ids.agentA, channelGuid: ids.channelA },
    });
    expect(toV0OutboundCalls([call()])).toEqual([]);
    // The contract's strings are never empty: an unknown caller is reported as Unknown.
    expect(toV0InboundCalls([{ ...call(), connectFrom: null }])[0]?.origin).toBe('Unknown');
  });

  it('turns an outbound record into one row per agent leg', () => {
    const outbound = { ...call(), direction: 'Outbound', connectTo: '+15550100' };
    expect(toV0OutboundCalls([outbound])).toEqual([
      {
        callGuid: ids.interaction,
        callStartedAt: '2024-05-01T08:00:00.000Z',
        state: 'Completed',
        agentId: ids.agentA,
        destination: '+15550100',
        ringDuration: '00:00:01',
        duration: '00:01:06',
      },
    ]);
    expect(toV0InboundCalls([outbound])).toEqual([]);
  });

  it('turns Presence and Interaction activities into agent states (no workload)', () => {
    const base: ActivityItem = {
      agentId: ids.agentA,
      type: 'Presence',
      category: 'Ready',
      name: 'Ready',
      eligibleForRouting: true,
      start: t0,
      end: t0 + 90_000,
      status: null,
      reason: null,
      interaction: null,
      channel: null,
      workload: null,
    };
    const connected: ActivityItem = {
      ...base,
      type: 'Interaction',
      category: 'Connected',
      name: null,
      end: null,
      interaction: { guid: ids.interaction, medium: 'Phone', mediumManager: 'CC', direction: 'Inbound' },
      channel: { guid: ids.channelA },
    };
    const workload: ActivityItem = {
      ...base,
      type: 'Workload',
      category: null,
      workload: { calls: 1, semiLive: 0, nonLive: 0 },
    };
    expect(toV0AgentStates([base, connected, workload], t0 + 5000)).toEqual([
      {
        agentId: ids.agentA,
        groupId: null,
        stateChangedAt: '2024-05-01T08:00:00.000Z',
        state: 'Ready',
        duration: '00:01:30',
      },
      {
        agentId: ids.agentA,
        groupId: null,
        stateChangedAt: '2024-05-01T08:00:00.000Z',
        state: 'Busy Inbound',
        duration: '00:00:05',
        callGuid: ids.interaction,
      },
    ]);
  });
});

describe('windows and pages', () => {
  const now = Date.parse('2024-05-10T00:00:00Z');
  it('defaults end to now and refuses an empty, inverted or too long window naming the parameter', () => {
    expect(windowOf({ start: '2024-05-09T00:00:00Z' }, now, 31 * 86_400_000, '31 days')).toEqual({
      start: now - 86_400_000,
      end: now,
    });
    expect(() => windowOf({ start: '2024-05-09T00:00:00Z', end: '2024-05-08T00:00:00Z' }, now, 1e12, 'x')).toThrow(
      expect.objectContaining({
        code: 'REQUEST.VALIDATION',
        errors: [{ pointer: '/query/end', message: 'end must be after start' }],
      }),
    );
    expect(() => windowOf({ start: '2024-05-11T00:00:00Z' }, now, 1e12, 'x')).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/query/start' })] }),
    );
    expect(() =>
      windowOf({ start: '2024-04-01T00:00:00Z', end: '2024-05-02T00:00:01Z' }, now, 31 * 86_400_000, '31 days'),
    ).toThrow(/must not exceed 31 days/);
  });

  it('pages 1-based with counts', () => {
    expect(pageOf([1, 2, 3, 4, 5], 2, 2)).toEqual({
      meta: { page: 2, count: 2, pageCount: 3, totalCount: 5 },
      items: [3, 4],
    });
    expect(pageOf([1], 3, 2).meta).toEqual({ page: 3, count: 0, pageCount: 1, totalCount: 1 });
  });
});
