import { type ComposedMessage, escapeHtml } from '../../mail/messages.ts';

/** The e-mail with a link that sets a new password; it says how long the link works and that it works once. */
export function passwordResetMessage(values: { username: string; link: string; minutes: number }): ComposedMessage {
  const text = [
    'Hello,',
    '',
    `Someone asked to reset the password of the Nativa account ${values.username}.`,
    `To choose a new password, open this link within ${values.minutes} minutes (it works once):`,
    values.link,
    '',
    'If you did not ask for this, ignore this message: your password stays as it is.',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>Someone asked to reset the password of the Nativa account <b>${escapeHtml(values.username)}</b>.</p>`,
    `<p>To choose a new password, open this link within ${values.minutes} minutes (it works once):`,
    `<a href="${escapeHtml(values.link)}">choose a new password</a></p>`,
    '<p>If you did not ask for this, ignore this message: your password stays as it is.</p>',
  ].join('\n');
  return { subject: 'Nativa: reset your password', text, html };
}

/** The e-mail that invites the owner of a new account to choose its password. */
export function invitationMessage(values: { username: string; link: string; days: number }): ComposedMessage {
  const text = [
    'Hello,',
    '',
    `A Nativa account has been opened for you. Your login is ${values.username}.`,
    `Choose your password within ${values.days} days by opening this link (it works once):`,
    values.link,
    '',
    'If you did not expect this message, you can ignore it.',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>A Nativa account has been opened for you. Your login is <b>${escapeHtml(values.username)}</b>.</p>`,
    `<p>Choose your password within ${values.days} days (the link works once):`,
    `<a href="${escapeHtml(values.link)}">choose my password</a></p>`,
    '<p>If you did not expect this message, you can ignore it.</p>',
  ].join('\n');
  return { subject: 'Your Nativa account: choose your password', text, html };
}
