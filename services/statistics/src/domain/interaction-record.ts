import type { Channel, ChannelEvent } from '@cc/contracts';

/** One interaction event as the record builder keeps it: type, the time it happened, and its data. */
export interface LoggedEvent {
  type: string;
  sequence: number;
  // biome-ignore lint/suspicious/noExplicitAny: event data was validated against the contract on consumption
  data: Record<string, any>;
}

/** A channel of the record and its events: the contract's shapes (offsets and durations in ms). */
export type { Channel, ChannelEvent } from '@cc/contracts';

/** The interaction record of the statistics API (times as ms; the view turns `start` into ISO). */
export interface InteractionRecord {
  guid: string;
  conversationGuid: string;
  status: 'Completed' | 'InProgress';
  medium: string;
  mediumManager: string;
  start: number;
  /** When the interaction ended (released and every agent's work done); null while it runs. */
  end: number | null;
  duration: number;
  direction: string;
  serviceName: string | null;
  connectTo: string | null;
  connectFrom: string | null;
  interactionPlanMapping: {
    addressName: string | null;
    mappingName: string | null;
    interactionPlanName: string | null;
  };
  channels: Channel[];
}

const at = (e: LoggedEvent) => Date.parse(e.data.occurredAt as string);

interface OpenSpan {
  type: string;
  from: number;
}

/** An agent's leg while the builder walks the events. */
interface AgentLeg {
  channel: Channel;
  open: OpenSpan[];
  endedAt: number | null;
  /** The CallRecording span runs with Connected when the plan recorded the interaction. */
  recording: boolean;
}

/**
 * Builds the interaction record from all events of one interaction, in sequence order. Pure and total: any
 * subset of the events (late, duplicated, or still running) gives a consistent record, so a record is rebuilt
 * from the log on every batch and redelivery is harmless. `now` closes spans still running.
 */
export function buildInteractionRecord(all: LoggedEvent[], now: number): InteractionRecord | null {
  const events = dedupeBySequence(all);
  const first = events[0];
  if (!first) return null;
  const queued = events.find((e) => e.type === 'interaction.queued');
  const start = queued ? at(queued) : at(first);
  const off = (ms: number) => Math.max(0, ms - start);

  const external: Channel = {
    guid: first.data.conversationId,
    offset: 0,
    duration: 0,
    endReason: null,
    party: { id: null, role: 'External', touchpoint: (queued?.data.connectFrom as string | null) ?? null },
    events: [],
  };
  const legs = new Map<string, AgentLeg>();
  let recording = false;
  let lastPlan: string | null = null;
  let planEvent: ChannelEvent | null = null;
  let released: LoggedEvent | null = null;
  let lastAt = start;

  const closePlan = (ms: number) => {
    if (planEvent) planEvent.duration = Math.max(0, off(ms) - planEvent.offset);
    planEvent = null;
  };
  const legOf = (e: LoggedEvent): AgentLeg | undefined => legs.get(e.data.channelId as string);
  const openSpan = (leg: AgentLeg, type: string, ms: number) => leg.open.push({ type, from: ms });
  const closeSpan = (leg: AgentLeg, type: string, ms: number) => {
    const i = leg.open.findIndex((s) => s.type === type);
    if (i < 0) return;
    const [span] = leg.open.splice(i, 1) as [OpenSpan];
    leg.channel.events.push({
      type,
      offset: off(span.from),
      name: null,
      duration: Math.max(0, ms - span.from),
      properties: null,
    });
  };
  const endLeg = (leg: AgentLeg, ms: number, reason: string) => {
    for (const span of [...leg.open].reverse()) closeSpan(leg, span.type, ms);
    leg.endedAt = ms;
    leg.channel.endReason ??= reason;
  };

  for (const e of events) {
    const t = at(e);
    lastAt = Math.max(lastAt, t);
    const d = e.data;
    switch (e.type) {
      case 'interaction.applet-executed': {
        const appletStart = Date.parse(d.startedAt as string);
        if (d.interactionPlan !== lastPlan || planEvent === null) {
          closePlan(appletStart);
          lastPlan = d.interactionPlan as string;
          planEvent = {
            type: 'InteractionPlan',
            offset: off(appletStart),
            name: lastPlan,
            duration: 0,
            properties: { reportingGroup: (d.reportingGroup as string | null) ?? null },
          };
          external.events.push(planEvent);
        }
        const appletType = d.applet.type === 'Queue' ? 'ACD' : (d.applet.type as string);
        external.events.push({
          type: 'Applet',
          offset: off(appletStart),
          name: d.applet.name,
          duration: d.durationMs,
          properties: { appletType },
        });
        if (d.applet.type === 'CallRecording') recording = true;
        if (d.dataSource) {
          external.events.push({
            type: 'DataSourceValueAcquired',
            offset: off(appletStart),
            name: d.dataSource.name,
            duration: 0,
            properties: { value: d.dataSource.value ?? null },
          });
        }
        if (d.queue) {
          external.events.push({
            type: 'Queue',
            offset: off(appletStart),
            name: d.applet.name,
            duration: d.durationMs,
            properties: {
              interactionPlan: d.interactionPlan,
              virtualQueues: [...d.queue.virtualQueues],
              presentedSkills: [...d.queue.presentedSkills],
              result: d.queue.result ?? null,
            },
          });
        }
        break;
      }
      case 'interaction.offered': {
        const leg: AgentLeg = {
          channel: {
            guid: d.channelId,
            offset: off(t),
            duration: 0,
            endReason: null,
            party: { id: d.agentId, role: 'Agent', touchpoint: d.agentUsername },
            events: [],
          },
          open: [],
          endedAt: null,
          recording: false,
        };
        legs.set(d.channelId as string, leg);
        openSpan(leg, 'Ringing', t);
        break;
      }
      case 'interaction.assigned': {
        const leg = legOf(e);
        if (!leg) break;
        closeSpan(leg, 'Ringing', t);
        openSpan(leg, 'Connected', t);
        if (recording) openSpan(leg, 'CallRecording', t);
        break;
      }
      case 'interaction.rejected': {
        const leg = legOf(e);
        if (!leg) break;
        endLeg(leg, t, d.reason === 'timed-out' ? 'TimedOut' : d.reason === 'rejected' ? 'Rejected' : 'Failed');
        break;
      }
      case 'interaction.held': {
        const leg = legOf(e);
        if (leg) openSpan(leg, 'Held', t);
        break;
      }
      case 'interaction.retrieved': {
        const leg = legOf(e);
        if (leg) closeSpan(leg, 'Held', t);
        break;
      }
      case 'interaction.transferred': {
        const leg = legOf(e);
        if (leg) endLeg(leg, t, 'Transferred');
        break;
      }
      case 'interaction.wrap-started': {
        const leg = legOf(e);
        if (!leg) break;
        closeSpan(leg, 'Held', t);
        closeSpan(leg, 'CallRecording', t);
        closeSpan(leg, 'Connected', t);
        openSpan(leg, 'Wrap', t);
        break;
      }
      case 'interaction.wrap-ended': {
        const leg = legOf(e);
        if (leg) endLeg(leg, t, 'Released');
        break;
      }
      case 'interaction.released': {
        released = e;
        const leg = d.channelId ? legs.get(d.channelId as string) : undefined;
        // Released by the agent: the agent goes on in wrap. By API or system: the agent's work ends now.
        if (leg && d.releasedBy !== 'agent' && leg.endedAt === null) endLeg(leg, t, 'Released');
        break;
      }
      default:
        break;
    }
  }

  const releasedAt = released ? at(released) : null;
  const legsDone = [...legs.values()].every((l) => l.endedAt !== null);
  const end =
    releasedAt !== null && legsDone ? Math.max(releasedAt, ...[...legs.values()].map((l) => l.endedAt ?? 0)) : null;
  const until = end ?? Math.max(now, lastAt);
  closePlan(releasedAt ?? until);
  const channels: Channel[] = [external];
  for (const leg of legs.values()) {
    const legEnd = leg.endedAt ?? until;
    for (const span of [...leg.open]) {
      // Still running: reported up to now, left open.
      leg.channel.events.push({
        type: span.type,
        offset: off(span.from),
        name: null,
        duration: Math.max(0, legEnd - span.from),
        properties: null,
      });
    }
    leg.channel.duration = Math.max(0, off(legEnd) - leg.channel.offset);
    leg.channel.events.sort((a, b) => a.offset - b.offset || order(a.type) - order(b.type));
    channels.push(leg.channel);
  }
  external.duration = off(releasedAt ?? until);
  external.endReason = released ? ((released.data.endReason as string) ?? 'Released') : null;
  return {
    guid: first.data.interactionId,
    conversationGuid: first.data.conversationId,
    status: end !== null ? 'Completed' : 'InProgress',
    medium: first.data.medium,
    mediumManager: first.data.mediumManager,
    start,
    end,
    duration: released ? (released.data.durationMs as number) : off(until),
    direction: first.data.direction,
    serviceName: (queued?.data.serviceName as string | null) ?? null,
    connectTo: (queued?.data.connectTo as string | null) ?? null,
    connectFrom: (queued?.data.connectFrom as string | null) ?? null,
    interactionPlanMapping: queued?.data.interactionPlanMapping ?? {
      addressName: null,
      mappingName: null,
      interactionPlanName: null,
    },
    channels,
  };
}

const eventOrder = ['Ringing', 'Connected', 'CallRecording', 'Held', 'Wrap'];
const order = (type: string) => eventOrder.indexOf(type);

function dedupeBySequence(events: LoggedEvent[]): LoggedEvent[] {
  const bySeq = new Map<number, LoggedEvent>();
  for (const e of events) bySeq.set(e.sequence, e);
  return [...bySeq.values()].sort((a, b) => a.sequence - b.sequence);
}

/** The API item of a stored record. */
export function toRecordView(r: InteractionRecord) {
  const { end: _end, start, ...rest } = r;
  return {
    status: rest.status,
    medium: rest.medium,
    mediumManager: rest.mediumManager,
    start: new Date(start).toISOString(),
    guid: rest.guid,
    conversationGuid: rest.conversationGuid,
    duration: rest.duration,
    direction: rest.direction,
    serviceName: rest.serviceName,
    connectTo: rest.connectTo,
    connectFrom: rest.connectFrom,
    interactionPlanMapping: rest.interactionPlanMapping,
    channels: rest.channels,
  };
}
