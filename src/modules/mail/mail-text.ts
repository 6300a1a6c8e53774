import { readFileSync } from 'node:fs';
import i18next, { type TFunction } from 'i18next';
import { projectFile } from '../../project-files.ts';
import { LANGUAGES, type Language } from './languages.ts';
import type english from './locales/en.json';

/**
 * The words of Nativa's e-mails, in each language an account can choose (docs/web-account.md,
 * "Languages"): the catalogues are src/modules/mail/locales/<language>.json, English the source.
 * One i18next instance, made once; every message takes a translator fixed to its recipient's
 * language, so no language is shared between requests that compose mail at the same time.
 */
export type MailKey = keyof typeof english extends infer Key
  ? Key extends `${infer Base}_${'one' | 'other'}`
    ? Base
    : Key
  : never;

const catalogue = (language: Language): Record<string, string> =>
  JSON.parse(readFileSync(projectFile('src', 'modules', 'mail', 'locales', `${language}.json`), 'utf8'));

const mailI18n = i18next.createInstance();
void mailI18n.init({
  // The catalogues are in memory: init completes before it returns.
  initAsync: false,
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  resources: Object.fromEntries(LANGUAGES.map((language) => [language, { translation: catalogue(language) }])),
  // Keys are flat ("registration.subject" is one key), like the web app's catalogues.
  keySeparator: false,
  nsSeparator: false,
  // The caller escapes what goes into HTML (escapeHtml) and nothing goes into the text version escaped.
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** A message's words in `language`: `text('registration.subject')`, `text('choosePassword', { count: 7 })`. */
export type MailText = (key: MailKey, values?: Record<string, string | number>) => string;

export function mailText(language: Language): MailText {
  const t: TFunction = mailI18n.getFixedT(language);
  return (key, values) => t(key, values ?? {}) as string;
}
