/**
 * The one way the webview makes DOM: elements from a tag, a few properties and children, where
 * every string becomes a text node. No markup is ever parsed from data, so nothing a cluster
 * or a manifest says can become script or markup.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  title?: string;
  /** Attributes; `true` sets an empty attribute, `false`/undefined leaves it off. */
  attrs?: Record<string, string | number | boolean | undefined>;
  data?: Record<string, string | number>;
  on?: { [K in keyof HTMLElementEventMap]?: (ev: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Props | null, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement;
export function h(tag: string, props?: Props | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  if (props?.class) el.className = props.class;
  if (props?.title) el.title = props.title;
  for (const [name, value] of Object.entries(props?.attrs ?? {})) {
    if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== undefined) el.setAttribute(name, String(value));
  }
  for (const [name, value] of Object.entries(props?.data ?? {})) el.dataset[name] = String(value);
  for (const [name, listener] of Object.entries(props?.on ?? {})) el.addEventListener(name, listener as EventListener);
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** A table of class CLS: one header row (a string is a plain header cell), then the body ROWS. */
export function table(cls: string, headers: (string | HTMLTableCellElement)[], rows: HTMLTableRowElement[]): HTMLTableElement {
  const head = h('tr', null, ...headers.map((c) => (typeof c === 'string' ? h('th', null, c) : c)));
  return h('table', { class: cls }, h('thead', null, head), h('tbody', null, ...rows));
}

/** A codicon (the font is linked by the page), hidden from screen readers: the text beside it says the same. */
export function icon(name: string, extraClass = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name}${extraClass ? ` ${extraClass}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

/** A horizontal bar split into parts of the given shares (0..100); widths go through CSSOM, which the CSP allows. */
export function bar(parts: { share: number; class: string; label: string }[], title: string): HTMLElement {
  const el = h('div', { class: 'bar', title, attrs: { role: 'img', 'aria-label': title } });
  for (const p of parts) {
    const share = Math.max(0, Math.min(100, p.share));
    const seg = h('div', { class: `bar-part ${p.class}`, title: p.label });
    seg.style.width = `${share}%`;
    el.appendChild(seg);
  }
  return el;
}
