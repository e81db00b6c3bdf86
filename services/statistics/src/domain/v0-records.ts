import type { ActivityItem } from './agent-activity';
import type { InteractionRecord } from './interaction-record';
import { hms, iso } from './time';

/** The v0 state name of an activity: the presence name, or the v0 wording of an interaction state. */
export function v0StateOf(item: ActivityItem): string {
  if (item.type !== 'Interaction') return item.name ?? item.type;
  if (item.category === 'Connected') return `Busy ${item.interaction?.direction ?? 'Inbound'}`;
  if (item.category === 'Wrap') return 'Wrap Up';
  return item.category ?? 'Busy';
}

/** v0 agentstates: Presence and Interaction activities (workload has no v0 form); groupId is not known here. */
export function toV0AgentStates(items: ActivityItem[], now: number) {
  return items
    .filter((i) => i.type !== 'Workload')
    .map((i) => ({
      agentId: i.agentId,
      groupId: null,
      stateChangedAt: iso(i.start),
      state: v0StateOf(i),
      duration: hms((i.end ?? now) - i.start),
      ...(i.interaction ? { callGuid: i.interaction.guid } : {}),
    }));
}

/** v0 strings are never empty: a number or party the record does not know is reported as `Unknown`. */
const known = (v: string | null | undefined) => (v ? v : 'Unknown');

const agentChannels = (r: InteractionRecord) => r.channels.filter((c) => c.party.role === 'Agent');
const spanOf = (c: InteractionRecord['channels'][number], type: string) => c.events.find((e) => e.type === type);

/** v0 outboundcalls: one row per agent leg of an outbound record. */
export function toV0OutboundCalls(records: InteractionRecord[]) {
  return records
    .filter((r) => r.direction === 'Outbound')
    .flatMap((r) =>
      agentChannels(r).map((c) => ({
        callGuid: r.guid,
        callStartedAt: iso(r.start),
        state: r.status,
        agentId: known(c.party.id),
        destination: known(r.connectTo),
        ringDuration: hms(spanOf(c, 'Ringing')?.duration ?? 0),
        duration: hms(r.duration),
      })),
    );
}

/**
 * v0 inboundcalls: one row per call event of an inbound record, numbered by `sequence`: Start, NewApplet per
 * applet, Queue per queue visit, ACDDelivery per answered agent leg, and End once the call ended.
 */
export function toV0InboundCalls(records: InteractionRecord[]) {
  const rows: ReturnType<typeof row>[] = [];
  function row(
    r: InteractionRecord,
    sequence: number,
    event: string,
    offset: number,
    duration: number,
    appletName: string | null,
    extra: { ringDuration?: string; additionalParameters?: Record<string, string> } = {},
  ) {
    return {
      connectedTo: known(r.connectTo ?? r.serviceName),
      serviceName: r.serviceName,
      callGuid: r.guid,
      origin: known(r.connectFrom),
      stateChangedAt: iso(r.start + offset),
      sequence,
      appletName,
      event,
      state: r.status,
      duration: hms(duration),
      ...extra,
    };
  }
  for (const r of records.filter((x) => x.direction === 'Inbound')) {
    const external = r.channels.find((c) => c.party.role === 'External');
    type Step = {
      event: string;
      offset: number;
      duration: number;
      applet: string | null;
      extra?: Parameters<typeof row>[6];
    };
    const steps: Step[] = [{ event: 'Start', offset: 0, duration: 0, applet: null }];
    for (const e of external?.events ?? []) {
      if (e.type === 'Applet' && e.properties?.appletType !== 'ACD')
        steps.push({ event: 'NewApplet', offset: e.offset, duration: e.duration, applet: e.name });
      if (e.type === 'Queue') steps.push({ event: 'Queue', offset: e.offset, duration: e.duration, applet: e.name });
    }
    for (const c of agentChannels(r)) {
      const connected = spanOf(c, 'Connected');
      if (!connected) continue;
      steps.push({
        event: 'ACDDelivery',
        offset: connected.offset,
        duration: connected.duration,
        applet: null,
        extra: {
          ringDuration: hms(spanOf(c, 'Ringing')?.duration ?? 0),
          additionalParameters: { agentId: known(c.party.id), channelGuid: c.guid },
        },
      });
    }
    if (r.end !== null) steps.push({ event: 'End', offset: r.end - r.start, duration: 0, applet: null });
    steps.sort((a, b) => a.offset - b.offset);
    steps.forEach((s, i) => {
      rows.push(row(r, i + 1, s.event, s.offset, s.duration, s.applet, s.extra));
    });
  }
  return rows;
}
