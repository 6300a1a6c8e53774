import { readFileSync } from 'node:fs';
import i18next, { type TFunction } from 'i18next';
import type { MessageValues } from '../errors.ts';
import { projectFile } from '../project-files.ts';

/**
 * The languages of the API's human messages (docs/api-conventions.md, "Languages of messages";
 * docs/adr/0049). English is the source and the default: a request gets Russian only when its
 * `Accept-Language` prefers it, so scripts that send no such header see no change. Codes and field
 * names never change with the language; only `message` texts do.
 *
 * The catalogues (src/http/locales/<language>.json, flat keys) serve two kinds of throw site:
 * those that name a key and its values (the validator's findings, src/http/input.ts), and those
 * that throw English text. For the second kind the English catalogue is read backwards: a message
 * that matches an English template gets that key and the values in its placeholders, so services
 * keep throwing plain English and the one error handler translates. A message no template matches
 * stays English.
 */
export const MESSAGE_LANGUAGES = ['en', 'ru'] as const;
export type MessageLanguage = (typeof MESSAGE_LANGUAGES)[number];
export const DEFAULT_MESSAGE_LANGUAGE: MessageLanguage = 'en';

export type { MessageValues };

type Catalogue = Record<string, string>;

const readCatalogue = (language: MessageLanguage): Catalogue =>
  JSON.parse(readFileSync(projectFile('src', 'http', 'locales', `${language}.json`), 'utf8')) as Catalogue;

export const MESSAGE_CATALOGUES: Record<MessageLanguage, Catalogue> = {
  en: readCatalogue('en'),
  ru: readCatalogue('ru'),
};

// Made once, with every catalogue loaded synchronously; requests only take fixed `t` functions of
// it, so concurrent requests never switch a shared language.
const messages = i18next.createInstance();
void messages.init({
  resources: Object.fromEntries(MESSAGE_LANGUAGES.map((language) => [language, { messages: MESSAGE_CATALOGUES[language] }])),
  ns: ['messages'],
  defaultNS: 'messages',
  lng: DEFAULT_MESSAGE_LANGUAGE,
  // A key a language lacks is not translated at all (the English text stays), never half-translated.
  fallbackLng: false,
  supportedLngs: [...MESSAGE_LANGUAGES],
  initAsync: false,
  keySeparator: false,
  nsSeparator: false,
  // Messages are plain text; the JSON and XML serialisers escape what needs escaping.
  interpolation: { escapeValue: false },
  returnNull: false,
});

const fixedT: Record<MessageLanguage, TFunction> = {
  en: messages.getFixedT('en'),
  ru: messages.getFixedT('ru'),
};

/** The text of a catalogue entry in one language. */
export function messageText(language: MessageLanguage, key: string, values: MessageValues = {}): string {
  return (fixedT[language] as (key: string, options: MessageValues) => string)(key, values);
}

/** The English text of a catalogue entry: what logs and the English answer carry. */
export const englishText = (key: string, values: MessageValues = {}): string =>
  messageText(DEFAULT_MESSAGE_LANGUAGE, key, values);

/**
 * The language an `Accept-Language` header prefers among those the API speaks, matched on the
 * primary subtag (`ru-RU` is Russian): the highest `q` wins, the header's order breaks ties, `*`
 * stands for English, tags of other languages are passed over, and English is what remains.
 */
export function negotiateMessageLanguage(header: string | undefined): MessageLanguage {
  if (header === undefined || header === '') return DEFAULT_MESSAGE_LANGUAGE;
  let best: MessageLanguage = DEFAULT_MESSAGE_LANGUAGE;
  let bestQuality = 0;
  for (const part of header.split(',')) {
    const [tag = '', ...parameters] = part.split(';');
    const primary = tag.trim().toLowerCase().split('-')[0] ?? '';
    let quality = 1;
    for (const parameter of parameters) {
      const [name, value] = parameter.split('=');
      if (name?.trim().toLowerCase() === 'q') quality = Number(value?.trim());
    }
    if (!(quality > 0 && quality <= 1)) continue;
    const language = primary === '*' ? DEFAULT_MESSAGE_LANGUAGE : MESSAGE_LANGUAGES.find((known) => known === primary);
    if (language !== undefined && quality > bestQuality) {
      best = language;
      bestQuality = quality;
    }
  }
  return best;
}

/** A message as a throw site may name it: its key and values, when it has them. */
export interface KeyedMessage {
  message: string;
  key?: string | undefined;
  values?: MessageValues | undefined;
}

/** The text of `message` in `language`; undefined when its catalogue has none (it stays English). */
export function translateMessage(language: MessageLanguage, message: KeyedMessage): string | undefined {
  if (language === DEFAULT_MESSAGE_LANGUAGE) return undefined;
  const found = message.key === undefined ? matchEnglish(message.message) : { key: message.key, values: message.values ?? {} };
  if (found === undefined || !messages.exists(found.key, { lng: language, count: numericCount(found.values) })) return undefined;
  return messageText(language, found.key, found.values);
}

const numericCount = (values: MessageValues): number | undefined =>
  values.count === undefined ? undefined : Number(values.count);

/** Plural forms share their key without the suffix; i18next picks the form from `count`. */
const PLURAL_SUFFIX = /_(?:zero|one|two|few|many|other)$/;
const KEYED_ONLY = 'validation.';
const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

interface Template {
  key: string;
  pattern: RegExp;
  names: string[];
  /** Letters outside the placeholders: the more of them, the more specific the template. */
  fixed: number;
}

const exactEnglish = new Map<string, string>();
const templates: Template[] = [];
for (const [fullKey, text] of Object.entries(MESSAGE_CATALOGUES.en)) {
  const key = fullKey.replace(PLURAL_SUFFIX, '');
  const names = [...text.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
  if (names.length === 0) {
    if (!exactEnglish.has(text)) exactEnglish.set(text, key);
    continue;
  }
  // The validator's templates ("Must be {{type}}.") are too general to read back; their throw site names the key.
  if (key.startsWith(KEYED_ONLY)) continue;
  const parts = text.split(PLACEHOLDER);
  // split() with a capturing group alternates literal text and placeholder names.
  const source = parts
    .map((part, index) =>
      index % 2 === 0 ? part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : part === 'count' ? '(-?\\d+)' : '(.+?)',
    )
    .join('');
  templates.push({ key, pattern: new RegExp(`^${source}$`, 's'), names, fixed: text.replace(PLACEHOLDER, '').length });
}
templates.sort((a, b) => b.fixed - a.fixed);

function matchEnglish(message: string): { key: string; values: MessageValues } | undefined {
  const exact = exactEnglish.get(message);
  if (exact !== undefined) return { key: exact, values: {} };
  for (const template of templates) {
    const match = template.pattern.exec(message);
    if (match === null) continue;
    const values: MessageValues = {};
    template.names.forEach((name, index) => {
      const value = match[index + 1] ?? '';
      values[name] = name === 'count' ? Number(value) : value;
    });
    return { key: template.key, values };
  }
  return undefined;
}
