import { type TSchema, Type } from '@sinclair/typebox';
import { Text } from '../../../http/input-types.ts';

const Base64Url = (description: string) =>
  Text(description, { minLength: 1, maxLength: 16_384, pattern: '^[A-Za-z0-9_-]+={0,2}$' });

/**
 * The credential a browser answers, in the JSON form of WebAuthn (`PublicKeyCredential.toJSON()`,
 * what `@simplewebauthn/browser` returns). Fields the WebAuthn standard adds later are let through
 * rather than refused: this is a document of the browser's, not of ours.
 */
const credentialShape = <Response extends TSchema>(response: Response, description: string) =>
  Type.Object(
    {
      id: Base64Url('The credential id, base64url.'),
      rawId: Base64Url('The same id, base64url.'),
      type: Type.Literal('public-key', { description: 'Always `public-key`.' }),
      response,
      authenticatorAttachment: Type.Optional(
        Type.Union([Type.Literal('platform'), Type.Literal('cross-platform')], {
          description: 'Whether the authenticator is built in (`platform`) or roaming.',
        }),
      ),
      clientExtensionResults: Type.Object({}, { additionalProperties: true, description: 'Extension outputs; may be empty.' }),
    },
    { description },
  );

export const RegistrationCredential = credentialShape(
  Type.Object(
    {
      clientDataJSON: Base64Url('The client data the authenticator signed over, base64url.'),
      attestationObject: Base64Url('The attestation object (CBOR), base64url.'),
      authenticatorData: Type.Optional(Base64Url('The authenticator data, base64url.')),
      transports: Type.Optional(
        Type.Array(Text('A transport: internal, hybrid, usb, nfc, ble.', { maxLength: 32 }), { maxItems: 10 }),
      ),
      publicKeyAlgorithm: Type.Optional(Type.Integer({ description: 'COSE algorithm of the new key.' })),
      publicKey: Type.Optional(Base64Url('The new public key (SPKI), base64url.')),
    },
    { additionalProperties: true, description: 'The authenticator’s attestation response.' },
  ),
  'The answer of `navigator.credentials.create()` to the registration options, as JSON.',
);

export const AuthenticationCredential = credentialShape(
  Type.Object(
    {
      clientDataJSON: Base64Url('The client data the authenticator signed over, base64url.'),
      authenticatorData: Base64Url('The authenticator data, base64url.'),
      signature: Base64Url('The signature, base64url.'),
      userHandle: Type.Optional(Base64Url('The user handle the passkey keeps, base64url.')),
    },
    { additionalProperties: true, description: 'The authenticator’s assertion response.' },
  ),
  'The answer of `navigator.credentials.get()` to the sign-in options, as JSON.',
);

export const RegisterPasskeyBody = Type.Object(
  {
    name: Text('A label to tell your passkeys apart, e.g. "Laptop" or "Phone".', { minLength: 1, maxLength: 100 }),
    credential: RegistrationCredential,
  },
  { additionalProperties: false },
);

export const PasskeySignInBody = Type.Object({ credential: AuthenticationCredential }, { additionalProperties: false });

export const PasskeySchema = Type.Object(
  {
    id: Type.Integer({ description: 'Passkey id (for removing it).' }),
    name: Type.String({ description: 'Its label.' }),
    created: Type.String({ format: 'date-time', description: 'When it was registered.' }),
    lastUsed: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'Its latest sign-in; null when never used.',
    }),
    backedUp: Type.Boolean({ description: 'Whether the authenticator says it is synced (backed up) beyond this device.' }),
  },
  { description: 'A passkey of the account (its public key stays on the server).' },
);

/** WebAuthn's options as JSON, handed to `startRegistration`/`startAuthentication` of `@simplewebauthn/browser` as they are. */
export const CreationOptionsSchema = Type.Object(
  {
    challenge: Type.String({ description: 'The challenge, base64url: a signed ticket valid 5 minutes, usable once.' }),
    rp: Type.Object(
      {
        id: Type.Optional(Type.String({ description: 'The RP ID: the host of PUBLIC_URL.' })),
        name: Type.String({ description: 'Shown by the authenticator.' }),
      },
      { description: 'The relying party (this server).' },
    ),
    user: Type.Object(
      {
        id: Type.String({ description: 'The user handle, base64url.' }),
        name: Type.String({ description: 'The username.' }),
        displayName: Type.String({ description: 'The e-mail.' }),
      },
      { description: 'The account the passkey is for.' },
    ),
  },
  { additionalProperties: true, description: 'PublicKeyCredentialCreationOptionsJSON (WebAuthn Level 3).' },
);

export const RequestOptionsSchema = Type.Object(
  {
    challenge: Type.String({ description: 'The challenge, base64url: a signed ticket valid 5 minutes, usable once.' }),
    rpId: Type.Optional(Type.String({ description: 'The RP ID: the host of PUBLIC_URL.' })),
  },
  { additionalProperties: true, description: 'PublicKeyCredentialRequestOptionsJSON (WebAuthn Level 3).' },
);
