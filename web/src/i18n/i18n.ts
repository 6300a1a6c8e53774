import i18next, { type BackendModule, type ReadCallback } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { setFormatLanguage } from '../format.ts';
import type account from './locales/en/account.json';
import type advertiser from './locales/en/advertiser.json';
import type common from './locales/en/common.json';
import type help from './locales/en/help.json';
import type operator from './locales/en/operator.json';
import type publisher from './locales/en/publisher.json';
import type shared from './locales/en/shared.json';

/**
 * The app's languages and how it picks one (docs/web-account.md, "Languages"). Each area of pages
 * has its own catalogue (`common` is everything outside pages/), loaded with the area's chunk, so
 * an advertiser never downloads the operator's strings. English is the source; a key missing in
 * Russian fails test/web/i18n-catalogues.test.ts, a key missing in English fails the typecheck.
 */
export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language's name in itself, for the switcher. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', ru: 'Русский' };

export const NAMESPACES = ['common', 'account', 'advertiser', 'publisher', 'operator', 'shared', 'help'] as const;

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: {
      common: typeof common;
      account: typeof account;
      advertiser: typeof advertiser;
      publisher: typeof publisher;
      operator: typeof operator;
      shared: typeof shared;
      help: typeof help;
    };
  }
}

const STORED_CHOICE = 'nativa.language';

const isLanguage = (value: unknown): value is Language => LANGUAGES.includes(value as Language);

/** A visitor's language before they sign in: their last choice here, else the browser's first we speak. */
function firstLanguage(): Language {
  const stored = localStorage.getItem(STORED_CHOICE);
  if (isLanguage(stored)) return stored;
  for (const tag of navigator.languages ?? [navigator.language]) {
    const primary = tag.toLowerCase().split('-')[0];
    if (isLanguage(primary)) return primary;
  }
  return 'en';
}

/** Catalogues as chunks of their own: `./locales/<language>/<namespace>.json`. */
const catalogues = import.meta.glob<{ default: Record<string, string> }>('./locales/*/*.json');

const lazyCatalogues: BackendModule = {
  type: 'backend',
  init() {},
  read(language: string, namespace: string, callback: ReadCallback) {
    const load = catalogues[`./locales/${language}/${namespace}.json`];
    if (!load) {
      callback(new Error(`no catalogue ${language}/${namespace}`), false);
      return;
    }
    load().then(
      (module) => callback(null, module.default),
      (error: Error) => callback(error, false),
    );
  },
};

/** Starts i18next in the visitor's language with the `common` catalogue loaded (the app waits for it). */
export async function startI18n(): Promise<void> {
  await i18next
    .use(lazyCatalogues)
    .use(initReactI18next)
    .init({
      lng: firstLanguage(),
      fallbackLng: 'en',
      supportedLngs: [...LANGUAGES],
      ns: ['common'],
      defaultNS: 'common',
      // Keys are flat ("campaigns.title" is one key), so a catalogue reads as a list of sentences.
      keySeparator: false,
      interpolation: { escapeValue: false }, // React escapes what it renders.
      react: { useSuspense: true },
    });
  document.documentElement.lang = currentLanguage();
  setFormatLanguage(currentLanguage());
}

export function currentLanguage(): Language {
  return isLanguage(i18next.resolvedLanguage) ? i18next.resolvedLanguage : 'en';
}

/**
 * Shows the app in `language` and remembers it on this browser. The account's own choice (stored
 * with the account, used for its e-mails) is saved by the caller through `PUT /api/me/language`.
 */
export async function showLanguage(language: Language): Promise<void> {
  localStorage.setItem(STORED_CHOICE, language);
  if (language === currentLanguage()) return;
  setFormatLanguage(language);
  await i18next.changeLanguage(language);
  document.documentElement.lang = language;
}
