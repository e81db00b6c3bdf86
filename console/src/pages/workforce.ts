import type { AgentSummary } from '@cc/contracts';
import {
  type AgentBars,
  handleStates,
  presenceStates,
  type RevisionWatch,
  summaryBars,
  watchRevisions,
} from '../charts';
import { duration, errorLine, h, localInputValue, replace, svg } from '../dom';
import type { Page } from './page';

const colours: Record<string, string> = {
  Ringing: '#b35900',
  Connected: '#1f5fa8',
  HeldExternalParty: '#7a3fa0',
  Wrap: '#2e7d32',
  Ready: '#2e7d32',
  Away: '#b35900',
  ExtendedAway: '#8a1c1c',
  LoggedOut: '#6b6b6b',
};
const bucketSeconds = 900;

/** Workforce: agent summaries as stacked 15-minute bars per agent, with markers on revised (late data) buckets. */
export const workforcePage: Page = {
  title: 'Workforce',
  render(root, api) {
    const start = h('input', {
      id: 'wfm-start',
      type: 'datetime-local',
      value: localInputValue(Math.floor((Date.now() - 3 * 3600_000) / 900_000) * 900_000),
    });
    const out = h('div', { 'aria-live': 'polite' });
    const form = h(
      'form',
      { class: 'inline', 'aria-label': 'Summaries window' },
      h('label', { for: 'wfm-start' }, 'From'),
      start,
      h('button', { type: 'submit' }, 'Show'),
    );
    replace(
      root,
      h('h1', {}, 'Workforce'),
      h(
        'p',
        {},
        'Agent summaries per 15-minute period: handle time by state (left bar) and presence (right bar). ',
        h('span', { class: 'marker-key' }, '▲'),
        ' marks a period revised by late data since the page opened (refreshed every 15 s).',
      ),
      form,
      legend(),
      out,
    );
    let stopped = false;
    let watch: RevisionWatch = { seen: new Map(), late: new Set() };
    let watchedFrom = '';
    const load = async (quiet = false): Promise<void> => {
      if (!quiet) replace(out, h('p', {}, 'Loading…'));
      try {
        const from = new Date(start.value).toISOString();
        const [page, agents] = await Promise.all([
          api.pages<AgentSummary>('stats', '/stats/wfm/agent-summaries', { start: from, limit: 1000 }, 5),
          api.all<{ agentId: string; username: string }>('admin', '/admin/agents', { limit: 100 }),
        ]);
        if (stopped) return;
        // Late data shows between two fetches of the same window (refreshed every 15 s while the page is open).
        if (from !== watchedFrom) watch = { seen: new Map(), late: new Set() };
        watchedFrom = from;
        watchRevisions(watch, page.items, page.upTo);
        const items = page.items;
        const names = new Map(agents.map((a) => [a.agentId, a.username]));
        const bars = summaryBars(items, watch.late);
        replace(
          out,
          bars.length
            ? bars.map((a) => agentChart(a, names.get(a.agentId) ?? a.agentId))
            : h('p', {}, 'No summaries in this window.'),
        );
      } catch (err) {
        replace(out, errorLine(err));
      }
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void load();
    });
    void load();
    const timer = setInterval(() => void load(true), 15_000);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  },
};

function legend(): HTMLElement {
  const item = (label: string) =>
    h(
      'li',
      {},
      svg(
        'svg',
        { width: 12, height: 12, 'aria-hidden': 'true' },
        svg('rect', { width: 12, height: 12, fill: colours[label] }),
      ),
      ` ${label}`,
    );
  return h(
    'div',
    { class: 'legend' },
    h('span', {}, 'Handle time:'),
    h('ul', {}, handleStates.map(item)),
    h('span', {}, 'Presence:'),
    h('ul', {}, presenceStates.map(item)),
  );
}

function agentChart(agent: AgentBars, name: string): HTMLElement {
  const barW = 14;
  const gap = 10;
  const height = 120;
  const top = 14;
  const left = 36;
  const width = left + agent.bars.length * (2 * barW + gap) + gap;
  const y = (seconds: number) => top + height - (Math.min(seconds, bucketSeconds) / bucketSeconds) * height;
  const revised = agent.bars.filter((b) => b.revised).length;
  const label = `${name}: ${agent.bars.length} periods from ${new Date(agent.bars[0]?.timestamp ?? 0).toLocaleTimeString()}, ${revised} revised by late data`;
  const chart = svg(
    'svg',
    {
      role: 'img',
      'aria-label': label,
      viewBox: `0 0 ${width} ${top + height + 22}`,
      width,
      height: top + height + 22,
      class: 'bars',
      'data-agent-chart': name,
    },
    svg('line', { x1: left - 4, x2: width, y1: top + height, y2: top + height, stroke: '#444' }),
    svg('text', { x: 0, y: top + 8, 'font-size': 10, fill: '#222' }, '15 min'),
    svg('text', { x: 0, y: top + height, 'font-size': 10, fill: '#222' }, '0'),
    agent.bars.map((b, i) => {
      const x = left + gap + i * (2 * barW + gap);
      const segs = (list: typeof b.handle, dx: number) =>
        list
          .filter((s) => s.seconds > 0)
          .map((s) =>
            svg(
              'rect',
              {
                x: x + dx,
                width: barW,
                y: y(s.from + s.seconds),
                height: Math.max(1, y(s.from) - y(s.from + s.seconds)),
                fill: colours[s.label] ?? '#999',
              },
              svg('title', {}, `${s.label} ${duration(s.seconds)}`),
            ),
          );
      const t = new Date(b.timestamp);
      return svg(
        'g',
        { 'data-bucket': b.timestamp, 'data-revision': b.revision },
        svg('title', {}, `${t.toLocaleTimeString()}: revision ${b.revision}`),
        segs(b.handle, 0),
        segs(b.presence, barW),
        b.revised
          ? svg(
              'path',
              { d: `M${x + barW - 5} ${top - 2} l5 -9 l5 9 z`, fill: '#8a1c1c', class: 'revision-marker' },
              svg('title', {}, `revised by late data (revision ${b.revision})`),
            )
          : null,
        svg(
          'text',
          { x: x, y: top + height + 14, 'font-size': 9, fill: '#222' },
          `${String(t.getHours()).padStart(2, '0')}:${String(t.getMinutes()).padStart(2, '0')}`,
        ),
      );
    }),
  );
  return h(
    'figure',
    { class: 'agent-chart' },
    h('figcaption', {}, h('strong', {}, name), revised ? ` · ${revised} revised period(s)` : ''),
    h('div', { class: 'scroll', role: 'region', 'aria-label': `Chart of ${name}`, tabindex: 0 }, chart),
  );
}
