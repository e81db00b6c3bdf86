import type { ProviderView } from '@cc/contracts';
import { errorLine, h, localInputValue, replace, table, time } from '../dom';
import type { Page } from './page';

interface Breaker {
  provider: string;
  state: 'closed' | 'open' | 'halfOpen' | 'disabled';
  failures: number;
  openedAt?: string | null;
}

interface Delivery {
  deliveryId: string;
  provider: string;
  interactionId: string;
  notification: string;
  state: 'pending' | 'delivered' | 'failed' | 'dead';
  nextAttemptAt: string | null;
  attempts: { at: string; status: number | null; latencyMs: number | null; error: string | null }[];
  createdAt: string;
}

/**
 * Providers: registrations with their permissions and breaker state (`/admin/providers`, `/admin/breakers`),
 * a provider's deliveries with every attempt (`/admin/deliveries`), and replay of failed or dead-lettered
 * deliveries, one or all since a time.
 */
export const providersPage: Page = {
  title: 'Providers',
  render(root, api, args) {
    const list = h('div');
    const detail = h('div');
    replace(root, h('h1', {}, 'Providers'), list, detail);
    let stopped = false;

    const load = async (): Promise<void> => {
      try {
        const [providers, breakers] = await Promise.all([
          api.all<ProviderView>('admin', '/admin/providers', { limit: 100 }),
          api.all<Breaker>('admin', '/admin/breakers', { limit: 100 }),
        ]);
        if (stopped) return;
        const breakerOf = new Map(breakers.map((b) => [b.provider, b]));
        replace(
          list,
          h('h2', {}, 'Registrations'),
          providers.length
            ? table(
                'Registered providers',
                ['Provider', 'Endpoint', 'Permissions', 'Breaker', 'Updated', ''],
                providers.map((p) => {
                  const b = breakerOf.get(p.provider);
                  const allowed = Object.entries(p.permissions)
                    .filter(([, v]) => v)
                    .map(([k]) => k);
                  return [
                    h('strong', {}, p.provider),
                    p.endpoint ?? '—',
                    allowed.join(', ') || 'none',
                    b
                      ? h(
                          'span',
                          { class: `badge ${b.state}`, 'data-breaker': p.provider },
                          b.state,
                          b.failures ? ` (${b.failures} failures)` : '',
                        )
                      : h('span', { class: 'badge closed' }, 'closed'),
                    time(p.updatedAt),
                    h('a', { href: `#/providers/${encodeURIComponent(p.provider)}` }, `Deliveries of ${p.provider}`),
                  ];
                }),
                { id: 'providers' },
              )
            : h('p', {}, 'No provider is registered in this account.'),
        );
        const chosen = args[0] ?? providers[0]?.provider;
        if (chosen) await deliveries(chosen);
      } catch (err) {
        replace(list, errorLine(err));
      }
    };

    const deliveries = async (provider: string): Promise<void> => {
      const since = h('input', {
        id: 'replay-since',
        type: 'datetime-local',
        value: localInputValue(Date.now() - 24 * 3600_000),
      });
      const note = h('div', { 'aria-live': 'polite' });
      const form = h(
        'form',
        { class: 'inline', 'aria-label': `Replay dead-lettered deliveries of ${provider}` },
        h('label', { for: 'replay-since' }, 'Replay dead-lettered deliveries since'),
        since,
        h('button', { type: 'submit' }, 'Replay'),
      );
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        try {
          const r = await api.json<{ replayed: number }>(
            'admin',
            'POST',
            `/admin/providers/${encodeURIComponent(provider)}/deliveries/replay`,
            { since: new Date(since.value).toISOString(), states: ['dead'] },
          );
          replace(note, h('p', {}, `${r.replayed} deliveries scheduled again.`));
          await deliveries(provider);
        } catch (err) {
          replace(note, errorLine(err));
        }
      });
      try {
        const items = await api.all<Delivery>('admin', '/admin/deliveries', { provider, limit: 50 }, 2);
        if (stopped) return;
        replace(
          detail,
          h('h2', {}, `Deliveries of ${provider}`),
          form,
          note,
          items.length
            ? table(
                `Deliveries of ${provider}`,
                ['Created', 'Interaction', 'Notification', 'State', 'Attempts', ''],
                items.map((d) => [
                  time(d.createdAt),
                  h('code', {}, d.interactionId),
                  d.notification,
                  h('span', { class: `badge ${d.state}` }, d.state),
                  h(
                    'details',
                    {},
                    h('summary', {}, `${d.attempts.length} attempt(s)`),
                    h(
                      'ol',
                      {},
                      d.attempts.map((a) =>
                        h(
                          'li',
                          {},
                          `${time(a.at)}: ${a.status ?? 'no response'}`,
                          a.latencyMs !== null ? ` in ${a.latencyMs} ms` : '',
                          a.error ? ` (${a.error})` : '',
                        ),
                      ),
                    ),
                  ),
                  d.state === 'failed' || d.state === 'dead'
                    ? h(
                        'button',
                        {
                          type: 'button',
                          class: 'secondary',
                          onclick: async () => {
                            try {
                              await api.json('admin', 'POST', `/admin/deliveries/${d.deliveryId}/replay`);
                              replace(note, h('p', {}, `Delivery ${d.deliveryId} scheduled again.`));
                              await deliveries(provider);
                            } catch (err) {
                              replace(note, errorLine(err));
                            }
                          },
                        },
                        'Replay',
                      )
                    : '',
                ]),
                { id: 'deliveries' },
              )
            : h('p', {}, 'No deliveries yet.'),
        );
      } catch (err) {
        replace(detail, errorLine(err));
      }
    };

    void load();
    return () => {
      stopped = true;
    };
  },
};
