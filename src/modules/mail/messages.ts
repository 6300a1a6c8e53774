import { CONFIRMATION_TTL_MS } from './email-confirmation.ts';
import type { Language } from './languages.ts';
import { mailText } from './mail-text.ts';

export interface ComposedMessage {
  subject: string;
  text: string;
  html: string;
}

/** Text made safe to put in an HTML message. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * The registration e-mail of a client account: its login, a single-use link to choose its password
 * and the confirmation link, in the new account's language. It carries no password: no e-mail of
 * Nativa ever does.
 */
export function registrationMessage(values: {
  language: Language;
  username: string;
  link: string;
  invitedBy: string;
  /** A single-use link to choose the account's password (valid as long as the confirmation link). */
  passwordLink: string;
}): ComposedMessage {
  const t = mailText(values.language);
  const count = Math.round(CONFIRMATION_TTL_MS / 86_400_000);
  const text = [
    t('greeting'),
    '',
    t('registration.opened', { invitedBy: values.invitedBy }),
    '',
    t('registration.login', { username: values.username }),
    '',
    t('choosePassword', { count }),
    values.passwordLink,
    '',
    t('registration.confirm', { count }),
    values.link,
    '',
    t('ignore'),
  ].join('\n');
  const html = [
    `<p>${escapeHtml(t('greeting'))}</p>`,
    `<p>${t('registration.opened', { invitedBy: escapeHtml(values.invitedBy) })}</p>`,
    `<p>${t('registration.loginHtml', { username: escapeHtml(values.username) })}</p>`,
    `<p>${t('choosePasswordHtml', { count, link: escapeHtml(values.passwordLink) })}</p>`,
    `<p>${t('registration.confirmHtml', { count, link: escapeHtml(values.link) })}</p>`,
    `<p>${escapeHtml(t('ignore'))}</p>`,
  ].join('\n');
  return { subject: t('registration.subject'), text, html };
}

/** A fresh confirmation link for an account whose first one expired or got lost; it carries no password. */
export function confirmationMessage(values: { language: Language; username: string; link: string }): ComposedMessage {
  const t = mailText(values.language);
  const count = Math.round(CONFIRMATION_TTL_MS / 86_400_000);
  const text = [
    t('greeting'),
    '',
    t('confirmation.request', { count, username: values.username }),
    values.link,
    '',
    t('ignore'),
  ].join('\n');
  const html = [
    `<p>${escapeHtml(t('greeting'))}</p>`,
    `<p>${t('confirmation.requestHtml', { count, username: escapeHtml(values.username), link: escapeHtml(values.link) })}</p>`,
    `<p>${escapeHtml(t('ignore'))}</p>`,
  ].join('\n');
  return { subject: t('confirmation.subject'), text, html };
}
