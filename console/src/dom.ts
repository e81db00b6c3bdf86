type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | undefined | EventListener>;

function append(el: Element, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
}

/** An HTML element with attributes (`on<event>` adds a listener) and children. No innerHTML anywhere. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element (presentation attributes only: the CSP allows no inline style attributes). */
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Replaces the children of `el`. */
export function replace(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/** A table in a focusable, labelled scroll region (keyboard users can scroll it on a narrow screen). */
export function table(label: string, head: string[], rows: Child[][], attrs: Attrs = {}): HTMLElement {
  return h(
    'div',
    { class: 'scroll', role: 'region', 'aria-label': label, tabindex: 0 },
    h(
      'table',
      attrs,
      h('caption', { class: 'sr-only' }, label),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          head.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((r) =>
          h(
            'tr',
            {},
            r.map((c) => h('td', {}, c)),
          ),
        ),
      ),
    ),
  );
}

/** An error line for a failed request (role=alert so screen readers announce it). */
export function errorLine(err: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, err instanceof Error ? err.message : String(err));
}

/** ISO time as local HH:MM:SS (dates when not today). */
export function time(iso: string | number): string {
  const d = new Date(iso);
  const today = new Date().toDateString() === d.toDateString();
  return today ? d.toLocaleTimeString() : d.toLocaleString();
}

/** Seconds as m:ss or h:mm:ss. */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const hh = Math.floor(s / 3600);
  const mm = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return hh ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
}

/** An `<input type=datetime-local>` value for a time (local). */
export function localInputValue(ms: number): string {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
}
