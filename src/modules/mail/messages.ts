import { CONFIRMATION_TTL_MS } from './email-confirmation.ts';

export interface ComposedMessage {
  subject: string;
  text: string;
  html: string;
}

/** Text made safe to put in an HTML message. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/** The registration e-mail of a new account: its login, its generated password and the confirmation link. */
export function registrationMessage(values: {
  username: string;
  password: string;
  link: string;
  invitedBy: string;
  /** A single-use link to choose one's own password instead (valid as long as the confirmation link). */
  passwordLink?: string;
}): ComposedMessage {
  const days = Math.round(CONFIRMATION_TTL_MS / 86_400_000);
  const own = values.passwordLink;
  const text = [
    'Hello,',
    '',
    `${values.invitedBy} has opened a Nativa advertiser account for you.`,
    '',
    `Login: ${values.username}`,
    `Password: ${values.password}`,
    ...(own
      ? ['', `To sign in with a password of your own instead, choose it within ${days} days (the link works once):`, own]
      : []),
    '',
    `Please confirm your e-mail address within ${days} days by opening this link:`,
    values.link,
    '',
    'If you did not expect this message, you can ignore it.',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>${escapeHtml(values.invitedBy)} has opened a Nativa advertiser account for you.</p>`,
    `<p>Login: <b>${escapeHtml(values.username)}</b><br>Password: <b>${escapeHtml(values.password)}</b></p>`,
    ...(own
      ? [`<p>To sign in with a password of your own instead: <a href="${escapeHtml(own)}">choose my password</a></p>`]
      : []),
    `<p>Please confirm your e-mail address within ${days} days: <a href="${escapeHtml(values.link)}">confirm my e-mail</a></p>`,
    '<p>If you did not expect this message, you can ignore it.</p>',
  ].join('\n');
  return { subject: 'Your Nativa account: confirm your e-mail', text, html };
}

/** A fresh confirmation link for an account whose first one expired or got lost; it carries no password. */
export function confirmationMessage(values: { username: string; link: string }): ComposedMessage {
  const days = Math.round(CONFIRMATION_TTL_MS / 86_400_000);
  const text = [
    'Hello,',
    '',
    `Please confirm the e-mail address of your Nativa account ${values.username} within ${days} days by opening this link:`,
    values.link,
    '',
    'If you did not expect this message, you can ignore it.',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>Please confirm the e-mail address of your Nativa account <b>${escapeHtml(values.username)}</b> within ${days} days:`,
    `<a href="${escapeHtml(values.link)}">confirm my e-mail</a></p>`,
    '<p>If you did not expect this message, you can ignore it.</p>',
  ].join('\n');
  return { subject: 'Nativa: confirm your e-mail', text, html };
}
