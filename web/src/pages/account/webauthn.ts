import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api, data } from '../../api.ts';

/*
 * The API describes WebAuthn's options loosely (they are WebAuthn's document, handed to the
 * browser as they are), and @simplewebauthn/browser types them fully: the options pass through
 * unchanged, and the credential's parts are copied into plain objects for the body.
 */
type CreationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];
type RequestOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

/** Creates a passkey with this browser's authenticator and registers it under `name`. */
export async function addPasskey(name: string) {
  const options = await data(api.POST('/api/me/passkeys/options'));
  const credential = await startRegistration({ optionsJSON: options as unknown as CreationOptions });
  const { response, clientExtensionResults } = credential;
  const body = {
    name,
    credential: { ...credential, response: { ...response }, clientExtensionResults: { ...clientExtensionResults } },
  };
  return data(api.POST('/api/me/passkeys', { body }));
}

/** Signs in with a passkey the browser offers (no login typed). */
export async function signInWithPasskey() {
  const options = await data(api.POST('/api/session/passkey/options'));
  const credential = await startAuthentication({ optionsJSON: options as unknown as RequestOptions });
  const { response, clientExtensionResults } = credential;
  const body = {
    credential: { ...credential, response: { ...response }, clientExtensionResults: { ...clientExtensionResults } },
  };
  return data(api.POST('/api/session/passkey', { body }));
}
