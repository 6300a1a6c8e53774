import { type Static, Type } from '@sinclair/typebox';

/** The languages the web account and the e-mails are written in (docs/web-account.md, "Languages"). */
export const LANGUAGES = ['en', 'ru'] as const;

export const LanguageSchema = Type.Union(
  LANGUAGES.map((language) => Type.Literal(language)),
  { description: 'The account’s language (extension): `en` English, `ru` Russian. Its web pages and e-mails are written in it.' },
);

export type Language = Static<typeof LanguageSchema>;
