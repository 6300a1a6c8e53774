import { Type } from '@sinclair/typebox';
import { SESSION_METHODS } from '../../../db/schema.ts';
import { Text } from '../../../http/input-types.ts';

const Password = (description: string) => Text(description, { minLength: 10, maxLength: 200 });

export const SignInBody = Type.Object(
  {
    login: Text('Username or e-mail, in any letter case.', { minLength: 1, maxLength: 254 }),
    password: Text('Password.', { minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);

export const PasswordChangeBody = Type.Object(
  {
    current: Text('The current password.', { minLength: 1, maxLength: 200 }),
    new: Password('The new password: 10 to 200 characters.'),
  },
  { additionalProperties: false },
);

export const ResetRequestBody = Type.Object(
  { login: Text('Username or e-mail of the account.', { minLength: 1, maxLength: 254 }) },
  { additionalProperties: false },
);

export const SetPasswordBody = Type.Object(
  {
    token: Text('The token of the e-mailed link (its `token` parameter).', { minLength: 1, maxLength: 100 }),
    password: Password('The new password: 10 to 200 characters.'),
  },
  { additionalProperties: false },
);

export const TokenNameBody = Type.Object(
  { name: Text('A label for the token, e.g. where it is used.', { minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const IssuedTokenSchema = Type.Object({
  id: Type.Integer({ description: 'Token id (for revoking it).' }),
  name: Type.String({ description: 'Label.' }),
  token: Type.String({ description: 'The token, for the Auth-Token header. It is shown only in this response.' }),
});

export const OwnTokenSchema = Type.Object({
  id: Type.Integer({ description: 'Token id.' }),
  name: Type.String({ description: 'Label.' }),
  created: Type.String({ format: 'date-time', description: 'When it was issued.' }),
  revoked: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When it was revoked; null while valid.',
  }),
});

export const Accepted = Type.Null({ description: 'Accepted; an e-mail is sent if the login names an account.' });

export const SecondFactorRequiredSchema = Type.Object(
  {
    secondFactor: Type.Literal('totp', {
      description: 'What comes next: a code of the authenticator app, or one of the recovery codes.',
    }),
    ticket: Type.String({
      description: 'Bring it to `POST /api/session/second-factor` with the code. It works once and only for this sign-in.',
    }),
    expires: Type.String({
      format: 'date-time',
      description: 'When the ticket ends (5 minutes); then the password is asked again.',
    }),
  },
  { description: 'The password was right and the account has two-factor sign-in: no session yet.' },
);

export const SecondFactorBody = Type.Object(
  {
    ticket: Text('The ticket `POST /api/session` answered.', { minLength: 1, maxLength: 400 }),
    code: Text('The 6-digit code of the authenticator app, or an unused recovery code (`xxxxx-xxxxx`).', {
      minLength: 1,
      maxLength: 40,
    }),
  },
  { additionalProperties: false },
);

export const SessionSchema = Type.Object(
  {
    id: Type.Integer({ description: 'Session id (for ending it).' }),
    current: Type.Boolean({ description: 'Whether this is the session making the request.' }),
    device: Type.String({ description: 'Browser and system, read from the User-Agent, e.g. "Firefox 133 on Windows".' }),
    userAgent: Type.String({ description: 'The User-Agent the browser signed in with (up to 512 characters).' }),
    address: Type.String({
      description: 'The network of the session’s latest request: its address truncated to IPv4 /24 or IPv6 /48 (203.0.113.0).',
    }),
    method: Type.Union(
      SESSION_METHODS.map((method) => Type.Literal(method)),
      {
        description:
          'How it signed in: password alone, password and an authenticator code, password and a recovery code, or a passkey.',
      },
    ),
    created: Type.String({ format: 'date-time', description: 'When it signed in.' }),
    lastSeen: Type.String({ format: 'date-time', description: 'Its latest request (kept to the minute).' }),
    expires: Type.String({
      format: 'date-time',
      description:
        'When it ends unless used again: 14 days after its latest request, and never later than its absolute lifetime.',
    }),
  },
  { description: 'A browser signed in to the account.' },
);

export const RevokedSessionsSchema = Type.Object({
  ended: Type.Integer({ description: 'How many sessions ended.' }),
});
