import type { Language } from '../../mail/index.ts';
import { type ComposedMessage, escapeHtml, mailText } from '../../mail/index.ts';

/**
 * The e-mail with a link that sets a new password, in the account's language; it says how long
 * the link works and that it works once.
 */
export function passwordResetMessage(values: {
  language: Language;
  username: string;
  link: string;
  minutes: number;
}): ComposedMessage {
  const t = mailText(values.language);
  const count = values.minutes;
  const text = [
    t('greeting'),
    '',
    t('passwordReset.asked', { username: values.username }),
    t('passwordReset.open', { count }),
    values.link,
    '',
    t('passwordReset.ignore'),
  ].join('\n');
  const html = [
    `<p>${escapeHtml(t('greeting'))}</p>`,
    `<p>${t('passwordReset.askedHtml', { username: escapeHtml(values.username) })}</p>`,
    `<p>${t('passwordReset.openHtml', { count, link: escapeHtml(values.link) })}</p>`,
    `<p>${escapeHtml(t('passwordReset.ignore'))}</p>`,
  ].join('\n');
  return { subject: t('passwordReset.subject'), text, html };
}

/** The e-mail that invites the owner of a new account to choose its password, in the account's language. */
export function invitationMessage(values: { language: Language; username: string; link: string; days: number }): ComposedMessage {
  const t = mailText(values.language);
  const count = values.days;
  const text = [
    t('greeting'),
    '',
    t('invitation.opened', { username: values.username }),
    t('choosePassword', { count }),
    values.link,
    '',
    t('ignore'),
  ].join('\n');
  const html = [
    `<p>${escapeHtml(t('greeting'))}</p>`,
    `<p>${t('invitation.openedHtml', { username: escapeHtml(values.username) })}</p>`,
    `<p>${t('choosePasswordHtml', { count, link: escapeHtml(values.link) })}</p>`,
    `<p>${escapeHtml(t('ignore'))}</p>`,
  ].join('\n');
  return { subject: t('invitation.subject'), text, html };
}
