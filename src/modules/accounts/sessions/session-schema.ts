import { Type } from '@sinclair/typebox';
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
