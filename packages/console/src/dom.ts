// A few helpers to build the page from plain DOM: no framework, every element labelled.

type Child = Node | string | undefined | false;

/** An element with attributes (`on*` functions become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, unknown> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    else if (name === 'className') element.className = text(value);
    else element.setAttribute(name, value === true ? '' : text(value));
  }
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) if (child !== undefined && child !== false) parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Says something to screen readers (and shows it) in a polite live region. */
export function announce(region: HTMLElement, message: string): void {
  region.textContent = message;
}

/** A value as text: primitives as they are, anything else as JSON. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}

/** A message of an error for people: the host's structured body when there is one. */
export function errorText(error: unknown): string {
  if (error && typeof error === 'object') {
    const body = (error as { body?: unknown }).body;
    if (body && typeof body === 'object') {
      const record = body as Record<string, unknown>;
      const message = record.message ?? record.error;
      const errors = Array.isArray(record.errors) ? `: ${record.errors.join('; ')}` : '';
      if (typeof message === 'string') return `${message}${errors}`;
    }
    if ('message' in error && typeof error.message === 'string') return error.message;
  }
  return String(error);
}

export function formatTime(iso: string | number | undefined): string {
  if (iso === undefined) return '';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso) : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
