import { CONFIRMATION_TTL_MS } from './email-confirmation.ts';

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
 * and the confirmation link. It carries no password: no e-mail of Nativa ever does.
 */
export function registrationMessage(values: {
  username: string;
  link: string;
  invitedBy: string;
  /** A single-use link to choose the account's password (valid as long as the confirmation link). */
  passwordLink: string;
}): ComposedMessage {
  const days = Math.round(CONFIRMATION_TTL_MS / 86_400_000);
  const text = [
    'Hello,',
    '',
    `${values.invitedBy} has opened a Nativa advertiser account for you.`,
    '',
    `Login: ${values.username}`,
    '',
    `Choose your password within ${days} days by opening this link (it works once):`,
    values.passwordLink,
    '',
    `Please confirm your e-mail address within ${days} days by opening this link:`,
    values.link,
    '',
    'If you did not expect this message, you can ignore it.',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>${escapeHtml(values.invitedBy)} has opened a Nativa advertiser account for you.</p>`,
    `<p>Login: <b>${escapeHtml(values.username)}</b></p>`,
    `<p>Choose your password within ${days} days (the link works once): <a href="${escapeHtml(values.passwordLink)}">choose my password</a></p>`,
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
