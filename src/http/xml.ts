/**
 * The XML form of a response, following the platform's Yii2 conventions: root element `response`,
 * list elements `item`, nested objects as nested elements, booleans `true`/`false`, null empty.
 * A hand-written serializer: responses are plain data and this is on the hot path.
 */
export function toXml(value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element('response', value)}\n`;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
// Characters XML 1.0 cannot carry at all; they are dropped rather than producing invalid XML.
const FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
// Most text has nothing to escape or drop: one scan finds out.
const SPECIAL = /[&<>"'\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

function escapeText(text: string): string {
  if (!SPECIAL.test(text)) return text;
  return text.replace(FORBIDDEN, '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Tag names by field name: responses repeat the same few dozen names. */
const tags = new Map<string, string>();
const TAG_CACHE_LIMIT = 1024;

function tagOf(name: string): string {
  let tag = tags.get(name);
  if (tag === undefined) {
    tag = VALID_NAME.test(name) ? name : 'item';
    if (tags.size >= TAG_CACHE_LIMIT) tags.clear();
    tags.set(name, tag);
  }
  return tag;
}

function element(name: string, value: unknown): string {
  const tag = tagOf(name);
  if (value === null || value === undefined) return `<${tag}></${tag}>`;
  if (typeof value === 'string') return `<${tag}>${escapeText(value)}</${tag}>`;
  if (typeof value === 'number' || typeof value === 'boolean') return `<${tag}>${value}</${tag}>`;
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
