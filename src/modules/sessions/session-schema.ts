import { Type } from '@sinclair/typebox';

const Password = (description: string) => Type.String({ minLength: 10, maxLength: 200, description });

export const SignInBody = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 254, description: 'Username or e-mail, in any letter case.' }),
    password: Type.String({ minLength: 1, maxLength: 200, description: 'Password.' }),
  },
  { additionalProperties: false },
);

export const PasswordChangeBody = Type.Object(
  {
    current: Type.String({ minLength: 1, maxLength: 200, description: 'The current password.' }),
    new: Password('The new password: 10 to 200 characters.'),
  },
  { additionalProperties: false },
);

export const ResetRequestBody = Type.Object(
  { login: Type.String({ minLength: 1, maxLength: 254, description: 'Username or e-mail of the account.' }) },
  { additionalProperties: false },
);

export const SetPasswordBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 100, description: 'The token of the e-mailed link (its `token` parameter).' }),
    password: Password('The new password: 10 to 200 characters.'),
  },
  { additionalProperties: false },
);

export const TokenNameBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, description: 'A label for the token, e.g. where it is used.' }) },
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
