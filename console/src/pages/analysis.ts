import type { CallTimeBreakDown, InteractionRecord } from '@cc/contracts';
import { timeSplit, transcriptTurns } from '../charts';
import { duration, errorLine, h, replace, svg, table, time } from '../dom';
import type { Page } from './page';

interface Analysis {
  guid: string;
  status: string;
  confidence?: string | null;
  language?: string | null;
  callTimeBreakDown?: CallTimeBreakDown | null;
  categories?: { category: string; categories?: { name: string; matches: string }[] }[];
  transcript?: string | null;
}

const splitColours: Record<string, string> = {
  agent: '#1f5fa8',
  customer: '#2e7d32',
  silence: '#6b6b6b',
  crossTalk: '#b35900',
};

/** Analysis: a recorded call's time split as a chart, its categories and its transcript by speaker. */
export const analysisPage: Page = {
  title: 'Analysis',
  render(root, api, args) {
    const guid = h('input', { id: 'call-guid', value: args[0] ?? '', size: 38, autocomplete: 'off' });
    const out = h('div', { 'aria-live': 'polite' });
    const recent = h('div');
    const form = h(
      'form',
      { class: 'inline', 'aria-label': 'Call to analyse' },
      h('label', { for: 'call-guid' }, 'Call GUID'),
      guid,
      h('button', { type: 'submit' }, 'Show'),
    );
    replace(root, h('h1', {}, 'Analysis'), form, out, recent);

    const show = async (id: string): Promise<void> => {
      replace(out, h('p', {}, 'Loading…'));
      try {
        const a = await api.json<Analysis>(
          'interaction-content:read',
          'GET',
          `/conversation-analyzer/interactions/${encodeURIComponent(id)}?transcript=true`,
          undefined,
          'application/vnd.cc-suite.v3+json',
        );
        const split = timeSplit({ ...(a.callTimeBreakDown ?? {}) } as Record<string, number>);
        replace(
          out,
          h('h2', {}, `Call ${a.guid}`),
          h(
            'p',
            {},
            `Status ${a.status}`,
            a.confidence ? `, confidence ${a.confidence}` : '',
            a.language ? `, language ${a.language}` : '',
          ),
          h('h3', {}, 'Time split'),
          split.length ? splitChart(split) : h('p', {}, 'No time split yet.'),
          h('h3', {}, 'Categories'),
          a.categories?.length
            ? h(
                'ul',
                {},
                a.categories.map((c) =>
                  h(
                    'li',
                    {},
                    h('strong', {}, c.category),
                    c.categories?.length
                      ? h(
                          'ul',
                          {},
                          c.categories.map((s) => h('li', {}, `${s.name}: “${s.matches}”`)),
                        )
                      : '',
                  ),
                ),
              )
            : h('p', {}, 'No category matched.'),
          h('h3', {}, 'Transcript'),
          transcriptView(a.transcript),
        );
      } catch (err) {
        replace(out, errorLine(err));
      }
    };
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const id = guid.value.trim();
      if (!id) return;
      const hash = `#/analysis/${encodeURIComponent(id)}`;
      // The same call again (e.g. still processing): load it again, the hash does not change.
      if (location.hash === hash) void show(id);
      else location.hash = hash;
    });
    if (args[0]) void show(args[0]);

    // Recent calls to pick from (statistics records of the last day).
    (async () => {
      try {
        const records = await api.all<InteractionRecord>(
          'stats',
          '/stats/interactions',
          { start: new Date(Date.now() - 24 * 3600_000).toISOString(), limit: 20 },
          1,
        );
        replace(
          recent,
          h('h2', {}, 'Recent calls'),
          table(
            'Recent calls',
            ['Started', 'Medium', 'Duration', ''],
            records
              .sort((a, b) => b.start.localeCompare(a.start))
              .map((r) => [
                time(r.start),
                `${r.direction} ${r.medium}`,
                duration((r.duration ?? 0) / 1000),
                h('a', { href: `#/analysis/${r.guid}` }, `Analysis of ${r.guid.slice(0, 8)}`),
              ]),
          ),
        );
      } catch (err) {
        replace(recent, errorLine(err));
      }
    })();
    return () => undefined;
  },
};

function splitChart(split: ReturnType<typeof timeSplit>): HTMLElement {
  const width = 600;
  let x = 0;
  const label = split.map((s) => `${s.label} ${Math.round(s.share * 100)}%`).join(', ');
  return h(
    'figure',
    { class: 'split' },
    svg(
      'svg',
      { role: 'img', 'aria-label': `Time split: ${label}`, viewBox: `0 0 ${width} 36`, class: 'split-chart' },
      split.map((s) => {
        const w = s.share * width;
        const rect = svg(
          'rect',
          { x, y: 0, width: w, height: 36, fill: splitColours[s.label] ?? '#999' },
          svg('title', {}, `${s.label} ${duration(s.seconds)}`),
        );
        x += w;
        return rect;
      }),
    ),
    h(
      'figcaption',
      {},
      h(
        'ul',
        { class: 'legend-inline' },
        split.map((s) =>
          h(
            'li',
            {},
            svg(
              'svg',
              { width: 12, height: 12, 'aria-hidden': 'true' },
              svg('rect', { width: 12, height: 12, fill: splitColours[s.label] ?? '#999' }),
            ),
            ` ${s.label}: ${duration(s.seconds)} (${Math.round(s.share * 100)}%)`,
          ),
        ),
      ),
    ),
  );
}

function transcriptView(transcript: string | null | undefined): HTMLElement {
  const turns = transcriptTurns(transcript);
  if (!turns.length) return h('p', {}, 'No transcript.');
  return h(
    'ol',
    { class: 'transcript' },
    turns.map((t) =>
      h(
        'li',
        { class: `turn ${t.speaker.toLowerCase()}` },
        t.at ? h('span', { class: 'muted' }, `${t.at} `) : '',
        h('strong', {}, `${t.speaker}: `),
        t.text,
      ),
    ),
  );
}
