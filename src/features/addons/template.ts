/**
 * The webhook's body template: the part of Mustache Unleash's templates use, rendered as
 * mustache.js renders it (measured on Unleash 8.2: `{{x}}` HTML-escapes & < > " ' / ` =, `{{{x}}}`
 * and `{{& x}}` do not). Variables with dotted names looked up through the section stack,
 * sections over lists and objects, inverted sections, comments. Pure.
 */

const ENTITIES: Record<string, string> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;', '`': '&#x60;', '=': '&#x3D;',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`=/]/g, (c) => ENTITIES[c]!);
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'var'; name: string; escape: boolean }
  | { kind: 'section'; name: string; inverted: boolean; children: Node[] };

const TAG = /\{\{(\{)?\s*([#^/!&]?)\s*([^}]*?)\s*\}?\}\}/g;

/** The template as a tree; an unclosed or mismatched section is a TemplateError. */
function parse(template: string): Node[] {
  const root: Node[] = [];
  const stack: Array<{ name: string; children: Node[] }> = [{ name: '', children: root }];
  let last = 0;
  for (const match of template.matchAll(TAG)) {
    const top = stack[stack.length - 1]!;
    if (match.index > last) top.children.push({ kind: 'text', text: template.slice(last, match.index) });
    last = match.index + match[0].length;
    const [, triple, sigil, name = ''] = match;
    if (sigil === '!') continue;
    if (sigil === '#' || sigil === '^') {
      const children: Node[] = [];
      top.children.push({ kind: 'section', name, inverted: sigil === '^', children });
      stack.push({ name, children });
    } else if (sigil === '/') {
      if (stack.length === 1 || top.name !== name) throw new TemplateError(`Unopened section "${name}"`);
      stack.pop();
    } else {
      top.children.push({ kind: 'var', name, escape: triple === undefined && sigil !== '&' });
    }
  }
  if (stack.length > 1) throw new TemplateError(`Unclosed section "${stack[stack.length - 1]!.name}"`);
  if (last < template.length) root.push({ kind: 'text', text: template.slice(last) });
  return root;
}

export class TemplateError extends Error {
  override name = 'TemplateError';
}

function lookup(stack: readonly unknown[], name: string): unknown {
  if (name === '.') return stack[stack.length - 1];
  const [head, ...rest] = name.split('.');
  for (let i = stack.length - 1; i >= 0; i--) {
    const scope = stack[i];
    if (scope !== null && typeof scope === 'object' && head! in scope) {
      let value: unknown = (scope as Record<string, unknown>)[head!];
      for (const part of rest) {
        value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
      }
      return value;
    }
  }
  return undefined;
}

/** A value as JavaScript's String() writes it (mustache.js's rendering): a list joined by commas. */
function asText(value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => (item === null || item === undefined ? '' : asText(item))).join(',');
  if (typeof value === 'object') return '[object Object]';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return '';
}

function isFalsy(value: unknown): boolean {
  return !value || (Array.isArray(value) && value.length === 0);
}

function render(nodes: readonly Node[], stack: unknown[], out: string[]): void {
  for (const node of nodes) {
    if (node.kind === 'text') out.push(node.text);
    else if (node.kind === 'var') {
      const value = lookup(stack, node.name);
      if (value === undefined || value === null) continue;
      const text = asText(value);
      out.push(node.escape ? escapeHtml(text) : text);
    } else {
      const value = lookup(stack, node.name);
      if (node.inverted) {
        if (isFalsy(value)) render(node.children, stack, out);
      } else if (Array.isArray(value)) {
        for (const item of value) render(node.children, [...stack, item], out);
      } else if (!isFalsy(value)) {
        render(node.children, typeof value === 'object' ? [...stack, value] : stack, out);
      }
    }
  }
}

/** `template` rendered over `view`; TemplateError when it does not parse. */
export function renderTemplate(template: string, view: Record<string, unknown>): string {
  const out: string[] = [];
  render(parse(template), [view], out);
  return out.join('');
}

/** Whether `offset` of `text` is inside a double-quoted JSON string (Unleash's test for where eventMarkdown lands). */
export function insideQuotes(text: string, offset: number): boolean {
  let inString = false;
  let escaped = false;
  for (let i = 0; i < offset; i++) {
    const c = text[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === '"') inString = !inString;
  }
  return inString;
}

const MARKDOWN_PLACEHOLDER = '\u0000VANE_EVENT_MARKDOWN\u0000';

/**
 * The webhook body from a template, as Unleash renders it: `event` the event, `eventJson` the
 * event's JSON as a JSON string (for `{{{eventJson}}}`), and `eventMarkdown` the event's summary,
 * escaped as a JSON string's content where it lands inside quotes and as is elsewhere.
 */
export function renderWebhookBody(template: string, event: unknown, markdown: string): string {
  const rendered = renderTemplate(template, {
    event, eventJson: JSON.stringify(JSON.stringify(event)), eventMarkdown: MARKDOWN_PLACEHOLDER,
  });
  const escaped = JSON.stringify(markdown).slice(1, -1);
  let result = '';
  let from = 0;
  for (let at = rendered.indexOf(MARKDOWN_PLACEHOLDER); at >= 0; at = rendered.indexOf(MARKDOWN_PLACEHOLDER, from)) {
    result += rendered.slice(from, at) + (insideQuotes(rendered, at) ? escaped : markdown);
    from = at + MARKDOWN_PLACEHOLDER.length;
  }
  return result + rendered.slice(from);
}
