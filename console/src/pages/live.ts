import type { InteractionRecord, PresenceState } from '@cc/contracts';
import { ApiError } from '../api';
import { duration, errorLine, h, replace, table, time } from '../dom';
import {
  agentsByPresence,
  applyEvent,
  emptyLiveState,
  interactionsFromRecords,
  type LiveState,
  queues,
  type StreamEvent,
  serviceLevel,
} from '../live-state';
import { SseParser } from '../sse';
import type { Page } from './page';

interface AgentRow {
  agentId: string;
  username: string;
  presence: PresenceState;
}

/** A notification delivery as the Live page lists it. */
interface NotificationRow {
  deliveryId: string;
  interactionId: string;
  notification: string;
  state: string;
  at: string;
}

const pollMs = 3000;

/**
 * Live: queues per route, agents by presence and workload, service level and recent notifications. Fed by
 * `GET /events/stream` (SSE, read with fetch because EventSource cannot send a bearer token); where the
 * gateway serves no stream (404), rebuilt from REST every 3 s.
 */
export const livePage: Page = {
  title: 'Live',
  render(root, api) {
    const state = emptyLiveState();
    const notifications = new Map<string, NotificationRow>();
    const abort = new AbortController();
    let mode = 'connecting';
    let problem: unknown;
    let timer: ReturnType<typeof setInterval> | undefined;

    const status = h('p', { class: 'status', 'aria-live': 'polite' });
    const body = h('div');
    replace(root, h('h1', {}, 'Live'), status, body);

    const draw = (): void => {
      const now = Date.now();
      replace(
        status,
        mode === 'stream'
          ? 'Updated from the event stream.'
          : mode === 'polling'
            ? `No event stream on this gateway: updated from the REST APIs every ${pollMs / 1000} s.`
            : 'Connecting…',
        state.updatedAt ? ` Last change ${time(state.updatedAt)}.` : '',
      );
      const sl = serviceLevel(state);
      const qs = queues(state, now);
      const withAgent = new Map<string, number>();
      for (const i of state.interactions.values())
        if (i.agentId) withAgent.set(i.agentId, (withAgent.get(i.agentId) ?? 0) + 1);
      replace(
        body,
        problem ? errorLine(problem) : null,
        h(
          'section',
          { 'aria-labelledby': 'sl-h', class: 'tiles' },
          h('h2', { id: 'sl-h', class: 'sr-only' }, 'Totals'),
          tile('Service level (answered within 20 s)', sl === null ? '—' : `${sl}%`, 'service-level'),
          tile('Waiting', String(qs.reduce((s, q) => s + q.waiting, 0)), 'waiting-total'),
          tile('With agents', String(qs.reduce((s, q) => s + q.withAgents, 0)), 'with-agents-total'),
        ),
        h(
          'section',
          { 'aria-labelledby': 'queues-h' },
          h('h2', { id: 'queues-h' }, 'Queues per route'),
          table(
            'Queues per route',
            ['Route', 'Waiting', 'Oldest wait', 'With agents'],
            qs.map((q) => [
              q.route,
              h('span', { 'data-queue': q.route, 'data-waiting': q.waiting }, String(q.waiting)),
              q.oldestWaitSeconds === null ? '—' : duration(q.oldestWaitSeconds),
              String(q.withAgents),
            ]),
            { id: 'queues' },
          ),
        ),
        h(
          'section',
          { 'aria-labelledby': 'agents-h' },
          h('h2', { id: 'agents-h' }, 'Agents by presence'),
          h(
            'div',
            { class: 'presence-groups' },
            agentsByPresence(state).map((g) =>
              h(
                'div',
                { class: 'presence' },
                h('h3', {}, `${g.presence} (${g.agents.length})`),
                g.agents.length
                  ? h(
                      'ul',
                      {},
                      g.agents.map((a) =>
                        h(
                          'li',
                          { 'data-agent': a.username, 'data-interactions': withAgent.get(a.agentId) ?? 0 },
                          h('strong', {}, a.username),
                          ` · ${withAgent.get(a.agentId) ?? 0} interaction(s)`,
                          mode === 'stream'
                            ? ` · workload ${a.workload.calls} call, ${a.workload.semiLive} semi-live, ${a.workload.nonLive} non-live`
                            : '',
                        ),
                      ),
                    )
                  : h('p', { class: 'muted' }, 'none'),
              ),
            ),
          ),
        ),
        h(
          'section',
          { 'aria-labelledby': 'notes-h' },
          h('h2', { id: 'notes-h' }, 'Recent notifications'),
          table(
            'Recent notifications',
            ['Time', 'Interaction', 'Notification', 'State'],
            [...notifications.values()]
              .sort((a, b) => b.at.localeCompare(a.at))
              .slice(0, 15)
              .map((n) => [
                time(n.at),
                h('code', {}, n.interactionId),
                n.notification,
                h('span', { 'data-delivery': n.interactionId, 'data-notification': n.notification }, n.state),
              ]),
            { id: 'notifications' },
          ),
        ),
      );
    };

    const loadAgents = async (): Promise<void> => {
      const agents = await api.all<AgentRow>('admin', '/admin/agents', { limit: 100 });
      for (const a of agents) {
        const known = state.agents.get(a.agentId);
        if (known && mode === 'stream') continue;
        state.agents.set(a.agentId, {
          agentId: a.agentId,
          username: a.username,
          presence: a.presence,
          workload: known?.workload ?? { calls: 0, semiLive: 0, nonLive: 0 },
        });
      }
    };
    const loadDeliveries = async (since: string): Promise<void> => {
      const deliveries = await api.all<NotificationRow & { createdAt: string }>(
        'admin',
        '/admin/deliveries',
        { since, limit: 100 },
        2,
      );
      for (const d of deliveries) notifications.set(d.deliveryId, { ...d, at: d.createdAt });
    };
    const loadSnapshot = async (): Promise<void> => {
      const since = new Date(Date.now() - 2 * 3600_000).toISOString();
      const [routes, records] = await Promise.all([
        api.all<{ name: string }>('admin', '/admin/routes', { limit: 100 }, 3),
        api.all<InteractionRecord>(
          'stats',
          '/stats/interactions',
          { start: since, include: 'StartedOrEnded', limit: 100 },
          5,
        ),
        loadDeliveries(since),
        loadAgents(),
      ]);
      for (const r of routes) state.routes.add(r.name);
      interactionsFromRecords(state, records);
      state.updatedAt = Date.now();
    };

    const poll = async (): Promise<void> => {
      try {
        await loadSnapshot();
        problem = undefined;
      } catch (err) {
        problem = err;
      }
      draw();
    };

    /**
     * Follows the stream. The first connection opens the stream BEFORE the REST snapshot is read and holds the
     * events that arrive meanwhile, applying them after it: an event between the snapshot and the connection
     * would otherwise be missed for good (the stream starts from "now"). A resumed connection needs no snapshot.
     */
    const stream = async (lastEventId?: string): Promise<void> => {
      const token = await api.token('admin');
      const res = await fetch('/events/stream', {
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'text/event-stream',
          ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
        },
        signal: abort.signal,
      });
      if (res.status === 404) throw new ApiError(404, 'REQUEST.NOT_FOUND', 'no event stream');
      if (!res.ok || !res.body) throw new ApiError(res.status, undefined, `event stream answered ${res.status}`);
      const held: Array<[string, string]> | undefined = lastEventId ? undefined : [];
      let snapshotApplied = !held;
      let last = lastEventId;
      const parser = new SseParser();
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      const reading = (async () => {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          for (const msg of parser.push(value)) {
            if (msg.id) last = msg.id;
            if (held && !snapshotApplied) held.push([msg.event, msg.data]);
            else handle(msg.event, msg.data);
          }
        }
      })();
      // Awaited below; marked handled now so a stream that fails during the snapshot is not an unhandled rejection.
      reading.catch(() => undefined);
      if (held) {
        await poll();
        snapshotApplied = true;
        for (const [event, data] of held.splice(0)) handle(event, data);
      }
      mode = 'stream';
      problem = undefined;
      draw();
      // Deliveries change state without an event the page may have seen (the stream starts from "now"): their
      // list is also re-read every 10 s, the REST answer being the record of truth.
      timer ??= setInterval(async () => {
        try {
          await loadDeliveries(new Date(Date.now() - 2 * 3600_000).toISOString());
          draw();
        } catch {
          // The next round tries again; the stream goes on.
        }
      }, 10_000);
      await reading;
      // The server closed the stream (restart, slow-consumer bound): resume where it stopped.
      if (!abort.signal.aborted) await stream(last);
    };

    const handle = (type: string, data: string): void => {
      // The gateway lost our place (restart, another instance, a resume older than its window): reload from REST.
      if (type === 'stream.reset') return void poll();
      let ev: StreamEvent;
      try {
        ev = JSON.parse(data) as StreamEvent;
      } catch {
        return;
      }
      ev.type = ev.type ?? type;
      if (type.startsWith('notification-delivery.')) {
        const d = ev.data as { deliveryId?: string; interactionId?: string; notification?: string };
        if (d.deliveryId) {
          const state = type.slice('notification-delivery.'.length);
          notifications.set(d.deliveryId, {
            deliveryId: d.deliveryId,
            interactionId: d.interactionId ?? '',
            notification: d.notification ?? '',
            state: state === 'attempt-failed' ? 'failed' : state === 'dead-lettered' ? 'dead' : state,
            at: ev.time,
          });
          draw();
        }
        return;
      }
      if (applyEvent(state as LiveState, ev)) draw();
    };

    draw();
    (async () => {
      try {
        await stream();
      } catch (err) {
        if (abort.signal.aborted) return;
        if (!(err instanceof ApiError && err.status === 404)) problem = err;
        mode = 'polling';
        if (timer) clearInterval(timer);
        timer = setInterval(poll, pollMs);
        await poll();
      }
    })();
    // The oldest wait grows by itself: redraw every second while something waits (only then, so keyboard
    // focus inside the page is not reset needlessly).
    const tick = setInterval(() => {
      if (queues(state, Date.now()).some((q) => q.waiting)) draw();
    }, 1000);
    return () => {
      abort.abort();
      clearInterval(tick);
      if (timer) clearInterval(timer);
    };
  },
};

function tile(label: string, value: string, id: string): HTMLElement {
  return h(
    'div',
    { class: 'tile' },
    h('span', { class: 'tile-label', id: `${id}-l` }, label),
    h('strong', { 'aria-labelledby': `${id}-l`, id }, value),
  );
}
