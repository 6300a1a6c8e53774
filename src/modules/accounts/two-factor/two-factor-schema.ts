import { Type } from '@sinclair/typebox';
import { Text } from '../../../http/input-types.ts';

export const TwoFactorStatusSchema = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Whether sign-in with a password also asks for a code.' }),
    enabledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'When it was turned on; null while off.',
    }),
    recoveryCodesLeft: Type.Integer({ description: 'Recovery codes not used yet (of 10); 0 while off.' }),
    required: Type.Boolean({
      description:
        'Whether this kind of account must have it (`REQUIRE_2FA_FOR`): it cannot be turned off, and a session without it may only enrol.',
    }),
  },
  { description: 'Two-factor sign-in (TOTP, RFC 6238) of the account.' },
);

export const EnrolmentSchema = Type.Object(
  {
    secret: Type.String({
      description: 'The shared secret in base32, to type into an authenticator app that cannot scan. Shown in this answer only.',
    }),
    uri: Type.String({
      description: 'The `otpauth://totp/…` URI (SHA-1, 6 digits, 30 s) that the QR code carries.',
    }),
  },
  { description: 'A new secret, waiting for a first code to confirm it.' },
);

export const CodeBody = Type.Object(
  {
    code: Text('The 6-digit code the authenticator app shows now, or an unused recovery code (`xxxxx-xxxxx`).', {
      minLength: 1,
      maxLength: 40,
    }),
  },
  { additionalProperties: false },
);

export const RecoveryCodesSchema = Type.Object(
  {
    recoveryCodes: Type.Array(Type.String(), {
      description:
        'Ten single-use codes (`xxxxx-xxxxx`) that stand in for the authenticator app. Shown in this answer only; the server keeps only keyed hashes.',
    }),
  },
  { description: 'Recovery codes, shown once.' },
);
