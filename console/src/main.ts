import { ConsoleApi } from './api';
import { errorLine, h, replace } from './dom';
import { analysisPage } from './pages/analysis';
import { livePage } from './pages/live';
import type { Page } from './pages/page';
import { providersPage } from './pages/providers';
import { statisticsPage } from './pages/statistics';
import { workforcePage } from './pages/workforce';

const pages: Record<string, Page> = {
  live: livePage,
  providers: providersPage,
  workforce: workforcePage,
  statistics: statisticsPage,
  analysis: analysisPage,
};

const app = document.getElementById('app') as HTMLElement;
let api: ConsoleApi | undefined;
let stopPage: (() => void) | undefined;

/** The sign-in form: API client credentials, kept in memory by ConsoleApi only. */
function signInView(message?: string): void {
  stopPage?.();
  stopPage = undefined;
  api = undefined;
  const id = h('input', { id: 'client-id', name: 'client-id', autocomplete: 'username', required: true });
  const secret = h('input', {
    id: 'client-secret',
    name: 'client-secret',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const status = h('div', { 'aria-live': 'polite' }, message ? errorLine(message) : null);
  const form = h(
    'form',
    { class: 'signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'cc-suite operator console'),
    h('p', {}, 'Sign in with an API client of your account. The secret stays in this tab only.'),
    h('label', { for: 'client-id' }, 'Client id'),
    id,
    h('label', { for: 'client-secret' }, 'Client secret'),
    secret,
    h('button', { type: 'submit' }, 'Sign in'),
    status,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const candidate = new ConsoleApi(id.value.trim(), secret.value);
    secret.value = '';
    replace(status, h('p', {}, 'Signing in…'));
    try {
      await candidate.signIn();
      api = candidate;
      shell();
    } catch (err) {
      replace(status, errorLine(err));
    }
  });
  replace(app, h('main', { id: 'main' }, form));
  id.focus();
}

let main: HTMLElement;
let nav: HTMLElement;

/** The signed-in layout: header with navigation, and the page. */
function shell(): void {
  nav = h(
    'nav',
    { 'aria-label': 'Pages' },
    h(
      'ul',
      {},
      Object.entries(pages).map(([key, p]) => h('li', {}, h('a', { href: `#/${key}`, 'data-page': key }, p.title))),
    ),
  );
  main = h('main', { id: 'main', tabindex: -1 });
  replace(
    app,
    h(
      'header',
      {},
      h('span', { class: 'brand' }, 'cc-suite console'),
      nav,
      h(
        'span',
        { class: 'who' },
        h('span', {}, api?.who ?? ''),
        h('button', { type: 'button', class: 'secondary', onclick: () => signInView() }, 'Sign out'),
      ),
    ),
    main,
  );
  route();
}

/** Shows the page the hash names (`#/live` by default); other hashes (the skip link) are left alone. */
function route(): void {
  if (!api || !main) return;
  const hash = location.hash;
  if (hash && !hash.startsWith('#/')) return;
  const [key = 'live', ...rest] = hash.replace(/^#\//, '').split('/');
  const page = pages[key] ?? pages.live;
  if (!page) return;
  stopPage?.();
  for (const a of nav.querySelectorAll('a')) {
    if (a.dataset.page === key) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  document.title = `${page.title} · cc-suite console`;
  replace(main);
  stopPage = page.render(main, api, rest.map(decodeURIComponent));
  // Screen readers and keyboard users land at the new page's content, not back at the top of the document.
  if (document.activeElement?.closest('nav')) main.focus();
}

window.addEventListener('hashchange', route);
signInView();
