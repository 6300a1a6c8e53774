/**
 * The XML form of a response, following the platform's Yii2 conventions: root element `response`,
 * list elements `item`, nested objects as nested elements, booleans `true`/`false`, null empty.
 * A hand-written serializer: responses are plain data and this is on the hot path.
 */
export function toXml(value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element('response', value)}\n`;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
const NEEDS_ESCAPE = /[&<>"']/;
// Characters XML 1.0 cannot carry at all; they are dropped rather than producing invalid XML.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function escapeText(text: string): string {
  const clean = text.replace(FORBIDDEN, '');
  return NEEDS_ESCAPE.test(clean) ? clean.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c) : clean;
}

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

function element(name: string, value: unknown): string {
  const tag = VALID_NAME.test(name) ? name : 'item';
  if (value === null || value === undefined) return `<${tag}></${tag}>`;
  if (Array.isArray(value)) {
    let inner = '';
    for (const item of value) inner += element('item', item);
    return `<${tag}>${inner}</${tag}>`;
  }
  if (value instanceof Date) return `<${tag}>${value.toISOString()}</${tag}>`;
  if (typeof value === 'object') {
    let inner = '';
    for (const key in value) {
      const child = (value as Record<string, unknown>)[key];
      if (child !== undefined) inner += element(key, child);
    }
    return `<${tag}>${inner}</${tag}>`;
  }
  return `<${tag}>${escapeText(String(value))}</${tag}>`;
}
