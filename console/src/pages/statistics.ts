import type { Channel, InteractionRecord } from '@cc/contracts';
import { duration, errorLine, h, localInputValue, replace, svg, table, time } from '../dom';
import type { Page } from './page';

const eventColours: Record<string, string> = {
  Ringing: '#b35900',
  Connected: '#1f5fa8',
  HeldExternalParty: '#7a3fa0',
  Wrap: '#2e7d32',
  Queue: '#6b6b6b',
  InteractionPlan: '#333333',
};

/** Statistics: interaction records of a window, and one record's channels and events as a timeline. */
export const statisticsPage: Page = {
  title: 'Statistics',
  render(root, api, args) {
    const start = h('input', {
      id: 'stats-start',
      type: 'datetime-local',
      value: localInputValue(Date.now() - 3600_000),
    });
    const list = h('div', { 'aria-live': 'polite' });
    const detail = h('div');
    const form = h(
      'form',
      { class: 'inline', 'aria-label': 'Records window' },
      h('label', { for: 'stats-start' }, 'Started or ended since'),
      start,
      h('button', { type: 'submit' }, 'Show'),
    );
    replace(root, h('h1', {}, 'Statistics'), form, list, detail);
    let records: InteractionRecord[] = [];

    const show = (r: InteractionRecord): void => {
      replace(
        detail,
        h('h2', { id: 'timeline-h' }, `Timeline of ${r.guid}`),
        h(
          'p',
          {},
          `${r.direction} ${r.medium}, ${r.status}, started ${time(r.start)}, ${duration((r.duration ?? 0) / 1000)}`,
        ),
        timeline(r),
        r.channels.map((c) =>
          h(
            'section',
            { class: 'channel' },
            h('h3', {}, channelName(c)),
            h(
              'ol',
              {},
              c.events.map((e) =>
                h(
                  'li',
                  {},
                  `+${duration(e.offset / 1000)} ${e.type}`,
                  e.name ? ` “${e.name}”` : '',
                  e.duration ? ` for ${duration(e.duration / 1000)}` : '',
                ),
              ),
            ),
          ),
        ),
        h('p', {}, h('a', { href: `#/analysis/${r.guid}` }, 'Analysis of this call')),
      );
    };

    const load = async (): Promise<void> => {
      try {
        records = await api.all<InteractionRecord>(
          'stats',
          '/stats/interactions',
          { start: new Date(start.value).toISOString(), include: 'StartedOrEnded', limit: 100 },
          3,
        );
        records.sort((a, b) => b.start.localeCompare(a.start));
        replace(
          list,
          records.length
            ? table(
                'Interaction records',
                ['Started', 'Route', 'Direction', 'Status', 'Duration', ''],
                records.map((r) => [
                  time(r.start),
                  r.interactionPlanMapping?.addressName ?? '—',
                  `${r.direction} ${r.medium}`,
                  r.status,
                  duration((r.duration ?? 0) / 1000),
                  h('a', { href: `#/statistics/${r.guid}`, 'data-record': r.guid }, 'Timeline'),
                ]),
                { id: 'records' },
              )
            : h('p', {}, 'No records in this window.'),
        );
        const chosen = records.find((r) => r.guid === args[0]);
        if (chosen) show(chosen);
      } catch (err) {
        replace(list, errorLine(err));
      }
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void load();
    });
    void load();
    return () => undefined;
  },
};

function channelName(c: Channel): string {
  return `${c.party.role}${c.party.touchpoint ? ` ${c.party.touchpoint}` : ''}${c.party.id ? ` ${c.party.id.slice(0, 8)}` : ''}`;
}

/** One row per channel, events as bars along the record's time. */
function timeline(r: InteractionRecord): SVGElement {
  const total = Math.max(
    1,
    r.duration ?? 0,
    ...r.channels.flatMap((c) => c.events.map((e) => e.offset + (e.duration ?? 0))),
  );
  const left = 120;
  const width = 760;
  const rowH = 26;
  const x = (ms: number) => left + (ms / total) * (width - left - 10);
  return svg(
    'svg',
    {
      role: 'img',
      'aria-label': `Timeline of ${r.channels.length} channels over ${duration(total / 1000)}; the event lists below give the same data`,
      viewBox: `0 0 ${width} ${r.channels.length * rowH + 10}`,
      class: 'timeline',
    },
    r.channels.map((c, i) =>
      svg(
        'g',
        {},
        svg('text', { x: 0, y: i * rowH + 17, 'font-size': 11, fill: '#222' }, channelName(c).slice(0, 18)),
        c.events.map((e) =>
          svg(
            'rect',
            {
              x: x(e.offset),
              y: i * rowH + 5,
              width: Math.max(2, x(e.offset + (e.duration ?? 0)) - x(e.offset)),
              height: rowH - 8,
              fill: eventColours[e.type] ?? '#888',
            },
            svg('title', {}, `${e.type}${e.name ? ` ${e.name}` : ''} at +${duration(e.offset / 1000)}`),
          ),
        ),
      ),
    ),
  );
}
