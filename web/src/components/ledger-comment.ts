import i18next from 'i18next';

/**
 * A ledger entry's comment in the page's language. The server writes its own comments in English
 * (the settlement's "12 clicks", a refund's "bot: 3 clicks"); those are read back here and said in
 * the language, while a comment a person typed (an operator's credit) is shown as it was written.
 */
export function ledgerComment(comment: string): string {
  const match = /^(?:(.+): )?(\d+) clicks?$/.exec(comment);
  if (match === null) return comment;
  const clicks = i18next.t('ledger.clicks', { ns: 'common', count: Number(match[2]) });
  return match[1] === undefined ? clicks : `${match[1]}: ${clicks}`;
}
