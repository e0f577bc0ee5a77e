// Building the page from data without markup: elements are created one by one and every string goes
// in as a text node. Nothing here parses HTML (the CSP's Trusted Types would refuse it anyway).
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  className?: string;
  title?: string;
  /** data-* attributes. */
  data?: Record<string, string>;
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props?.className) element.className = props.className;
  if (props?.title) element.title = props.title;
  for (const [key, value] of Object.entries(props?.data ?? {})) element.dataset[key] = value;
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }
}

/**
 * Runs a write with its buttons disabled until it is answered: a double click, or a click while it is on its
 * way, makes no second write (a second send or task, or an answer's already_resolved over its "done").
 */
export async function holding(buttons: Array<HTMLButtonElement | null>, work: () => Promise<void>): Promise<void> {
  const held = buttons.filter((button) => button !== null);
  if (held.some((button) => button.disabled)) return;
  // A focused button that is disabled drops the focus to <body>: a keyboard user gets it back afterwards.
  const focused = held.find((button) => button === document.activeElement);
  for (const button of held) button.disabled = true;
  try {
    await work();
  } finally {
    for (const button of held) button.disabled = false;
    if (focused?.isConnected && (document.activeElement === null || document.activeElement === document.body)) focused.focus();
  }
}

/** The span beside an action that says how it went: a live region, so a screen reader reads it out. */
export function resultSpan(): HTMLSpanElement {
  const span = el("span", { className: "result" });
  span.setAttribute("role", "status");
  return span;
}

/**
 * Nodes drawn from a list of items, kept by key with what each was drawn from: an item unchanged since the
 * last draw keeps its node, and with it what that node shows (an action's result, parsed markdown).
 */
export class KeptViews<T> {
  private drawn = new Map<string, { from: string; node: HTMLElement }>();

  constructor(private readonly key: (item: T) => string) {}

  views(items: readonly T[], draw: (item: T) => HTMLElement): HTMLElement[] {
    const next = new Map<string, { from: string; node: HTMLElement }>();
    const nodes = items.map((item) => {
      const key = this.key(item);
      const from = JSON.stringify(item);
      const kept = this.drawn.get(key);
      const node = kept?.from === from ? kept.node : draw(item);
      next.set(key, { from, node });
      return node;
    });
    this.drawn = next;
    return nodes;
  }
}

export function $(selector: string): HTMLElement {
  const found = document.querySelector<HTMLElement>(selector);
  if (!found) throw new Error(`missing ${selector}`);
  return found;
}

export { ago, localTime } from "../../common/time.js";

export function bytes(size: number): string {
  return size < 1024 ? `${size} B` : size < 1024 * 1024 ? `${(size / 1024).toFixed(1)} KiB` : `${(size / 1024 / 1024).toFixed(1)} MiB`;
}
