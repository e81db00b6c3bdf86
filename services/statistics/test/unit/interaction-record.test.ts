import { buildInteractionRecord, toRecordView } from '../../src/domain/interaction-record';
import { defined, InteractionEvents, ids, t0 } from '../builders/interaction-events';

const fullCall = () =>
  new InteractionEvents()
    .queued(0)
    .applet(0, 'SetDataSource', 'Set customer', 0, { dataSource: { name: 'customer', value: 'gold' } })
    .applet(0, 'CallRecording', 'Record')
    .applet(0, 'Announcement', 'Welcome', 3000)
    .offered(5000, 'A', ids.channelA)
    .rejected(6000, 'A', ids.channelA, 'rejected')
    .offered(8000, 'B', ids.channelB)
    .queueLeft(9000, 3000, 'Delivered')
    .assigned(9000, 'B', ids.channelB, 1000)
    .held(12000, 'B', ids.channelB)
    .retrieved(15000, 'B', ids.channelB, 3000)
    .wrapStarted(20000, 'B', ids.channelB, 11000)
    .released(20000, 'agent', 'B', ids.channelB)
    .wrapEnded(25000, 'B', ids.channelB, 5000);

const later = t0 + 3_600_000;

describe('buildInteractionRecord', () => {
  it('builds the header of the record from interaction.queued', () => {
    const r = buildInteractionRecord(fullCall().events, later);
    expect(r).toMatchObject({
      guid: ids.interaction,
      conversationGuid: ids.conversation,
      status: 'Completed',
      medium: 'Phone',
      mediumManager: 'CC',
      start: t0,
      end: t0 + 25000,
      duration: 20000,
      direction: 'Inbound',
      serviceName: 'sales',
      connectTo: null,
      connectFrom: '+441234567890',
      interactionPlanMapping: { addressName: 'sales', mappingName: 'sales', interactionPlanName: 'plan-sales' },
    });
    expect(toRecordView(defined(r)).start).toBe('2024-05-01T08:00:00.000Z');
    expect(toRecordView(defined(r))).not.toHaveProperty('end');
  });

  it('puts the plan, applets, data sources and the queue on the external channel', () => {
    const [external] = defined(buildInteractionRecord(fullCall().events, later)).channels;
    expect(external).toMatchObject({
      guid: ids.conversation,
      offset: 0,
      duration: 20000,
      endReason: 'Released',
      party: { id: null, role: 'External', touchpoint: '+441234567890' },
    });
    expect(defined(external).events).toEqual([
      {
        type: 'InteractionPlan',
        offset: 0,
        name: 'plan-sales',
        duration: 20000,
        properties: { reportingGroup: 'group-1' },
      },
      { type: 'Applet', offset: 0, name: 'Set customer', duration: 0, properties: { appletType: 'SetDataSource' } },
      { type: 'DataSourceValueAcquired', offset: 0, name: 'customer', duration: 0, properties: { value: 'gold' } },
      { type: 'Applet', offset: 0, name: 'Record', duration: 0, properties: { appletType: 'CallRecording' } },
      { type: 'Applet', offset: 0, name: 'Welcome', duration: 3000, properties: { appletType: 'Announcement' } },
      { type: 'Applet', offset: 3000, name: 'Queue 1', duration: 6000, properties: { appletType: 'ACD' } },
      {
        type: 'Queue',
        offset: 3000,
        name: 'Queue 1',
        duration: 6000,
        properties: {
          interactionPlan: 'plan-sales',
          virtualQueues: ['vq-sales'],
          presentedSkills: ['english'],
          result: 'Delivered',
        },
      },
    ]);
  });

  it('gives a missed offer its own channel ending Rejected, and the answering agent Ringing, Connected, CallRecording, Held and Wrap', () => {
    const [, missed, answered] = defined(buildInteractionRecord(fullCall().events, later)).channels;
    expect(missed).toEqual({
      guid: ids.channelA,
      offset: 5000,
      duration: 1000,
      endReason: 'Rejected',
      party: { id: ids.agentA, role: 'Agent', touchpoint: 'alice' },
      events: [{ type: 'Ringing', offset: 5000, name: null, duration: 1000, properties: null }],
    });
    expect(answered).toMatchObject({ guid: ids.channelB, offset: 8000, duration: 17000, endReason: 'Released' });
    expect(defined(answered).events.map((e) => [e.type, e.offset, e.duration])).toEqual([
      ['Ringing', 8000, 1000],
      ['Connected', 9000, 11000],
      ['CallRecording', 9000, 11000],
      ['Held', 12000, 3000],
      ['Wrap', 20000, 5000],
    ]);
  });

  it('ends a timed-out offer TimedOut', () => {
    const events = new InteractionEvents()
      .queued(0)
      .offered(1000, 'A', ids.channelA)
      .rejected(21000, 'A', ids.channelA, 'timed-out');
    const r = defined(buildInteractionRecord(events.events, t0 + 30000));
    expect(r.channels[1]).toMatchObject({ endReason: 'TimedOut', duration: 20000 });
    expect(r.status).toBe('InProgress');
  });

  it('makes a channel per agent on a transfer, the first ending Transferred', () => {
    const events = new InteractionEvents()
      .queued(0)
      .offered(1000, 'A', ids.channelA)
      .assigned(2000, 'A', ids.channelA, 1000)
      .held(3000, 'A', ids.channelA)
      .transferred(5000, 'A', ids.channelA, 'B')
      .offered(6000, 'B', ids.channelC)
      .assigned(7000, 'B', ids.channelC, 1000)
      .wrapStarted(10000, 'B', ids.channelC, 3000)
      .released(10000, 'agent', 'B', ids.channelC)
      .wrapEnded(12000, 'B', ids.channelC, 2000);
    const r = defined(buildInteractionRecord(events.events, later));
    expect(r.channels.map((c) => [c.party.role, c.party.id, c.endReason])).toEqual([
      ['External', null, 'Released'],
      ['Agent', ids.agentA, 'Transferred'],
      ['Agent', ids.agentB, 'Released'],
    ]);
    expect(defined(r.channels[1]).events.map((e) => [e.type, e.offset, e.duration])).toEqual([
      ['Ringing', 1000, 1000],
      ['Connected', 2000, 3000],
      ['Held', 3000, 2000],
    ]);
    expect(defined(r.channels[2]).events.map((e) => e.type)).toEqual(['Ringing', 'Connected', 'Wrap']);
    expect(r.end).toBe(t0 + 12000);
  });

  it('reports a running interaction InProgress with its open spans up to now', () => {
    const events = new InteractionEvents()
      .queued(0)
      .offered(1000, 'A', ids.channelA)
      .assigned(2000, 'A', ids.channelA, 1000);
    const r = defined(buildInteractionRecord(events.events, t0 + 10000));
    expect(r).toMatchObject({ status: 'InProgress', end: null, duration: 10000 });
    expect(defined(r.channels[1]).events.map((e) => [e.type, e.duration])).toEqual([
      ['Ringing', 1000],
      ['Connected', 8000],
    ]);
  });

  it('ends the agent leg at once when released by API while connected, and a queued one with the Queue result Released', () => {
    const connected = new InteractionEvents()
      .queued(0)
      .offered(1000, 'A', ids.channelA)
      .assigned(2000, 'A', ids.channelA, 1000)
      .released(4000, 'api', 'A', ids.channelA);
    const r = defined(buildInteractionRecord(connected.events, later));
    expect(r).toMatchObject({ status: 'Completed', end: t0 + 4000 });
    expect(defined(r.channels[1]).events.map((e) => [e.type, e.duration])).toEqual([
      ['Ringing', 1000],
      ['Connected', 2000],
    ]);
    const queued = new InteractionEvents().queued(0).queueLeft(3000, 0, 'Released').released(3000, 'api');
    const q = defined(buildInteractionRecord(queued.events, later));
    expect(q.channels).toHaveLength(1);
    expect(defined(q.channels[0]).events.find((e) => e.type === 'Queue')?.properties).toMatchObject({
      result: 'Released',
    });
    expect(q.status).toBe('Completed');
  });

  it('gives the same record whatever the order and duplication of its events (redelivery)', () => {
    const events = fullCall().events;
    const shuffled = [...events].reverse().concat(events.slice(2, 6));
    expect(buildInteractionRecord(shuffled, later)).toEqual(buildInteractionRecord(events, later));
  });

  it('marks a new InteractionPlan event when a transfer to a route runs another plan', () => {
    const events = new InteractionEvents()
      .queued(0)
      .applet(0, 'Announcement', 'Hello', 1000)
      .applet(5000, 'Announcement', 'Other hello', 1000, { plan: 'plan-support' })
      .released(8000, 'system');
    const plans = defined(buildInteractionRecord(events.events, later)).channels[0]?.events.filter(
      (e) => e.type === 'InteractionPlan',
    );
    expect(plans?.map((p) => [p.name, p.offset, p.duration])).toEqual([
      ['plan-sales', 0, 5000],
      ['plan-support', 5000, 3000],
    ]);
  });

  it('answers null for no events', () => {
    expect(buildInteractionRecord([], later)).toBeNull();
  });
});
