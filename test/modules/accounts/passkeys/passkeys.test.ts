import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { ERRORS } from '../../../../src/errors.ts';
import { relyingPartyOf } from '../../../../src/modules/accounts/passkeys/passkey-routes.ts';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD } from '../../../helpers/accounts.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

/**
 * The passkey routes' refusals and their relying party. Registering and signing in with a real
 * authenticator is in test/pages/account-security.test.ts (Chromium's virtual authenticator).
 */
describe('passkeys: options, refusals and the relying party', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { PUBLIC_URL: 'https://ads.example.test' } });
  });
  after(async () => {
    await server.close();
  });

  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  /** An assertion-shaped answer whose client data carries `challenge`; its signature is nobody's. */
  const forgedAssertion = (id: string, challenge: string) => ({
    id,
    rawId: id,
    type: 'public-key',
    clientExtensionResults: {},
    response: {
      clientDataJSON: b64(JSON.stringify({ type: 'webauthn.get', challenge, origin: 'https://ads.example.test' })),
      authenticatorData: b64('x'.repeat(37)),
      signature: b64('not a signature'),
    },
  });

  it('answers sign-in options for this RP ID, signed and not stored', async () => {
    const before = await server.server.context.db.selectFrom('spent_challenges').selectAll().execute();
    const options = await server.anonymous.post('/api/session/passkey/options');
    assert.equal(options.status, 200, options.text);
    const body = options.json();
    assert.equal(body.rpId, 'ads.example.test');
    assert.equal(body.userVerification, 'required');
    assert.equal(options.header('cache-control'), 'no-store');
    const ticket = Buffer.from(body.challenge, 'base64url').toString('utf8');
    assert.match(ticket, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/, 'the challenge is a signed ticket');
    const afterwards = await server.server.context.db.selectFrom('spent_challenges').selectAll().execute();
    assert.deepEqual(afterwards, before, 'asking writes nothing');
  });

  it('refuses an unknown passkey or a forged answer with 401, counted by the sign-in throttle', async () => {
    const { challenge } = (await server.anonymous.post('/api/session/passkey/options')).json();
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const refused = await server.anonymous.post('/api/session/passkey', { credential: forgedAssertion('AAAA', challenge) });
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.json().code, ERRORS.passkey_refused.code);
      assert.equal(refused.header('set-cookie'), undefined);
    }
    const blocked = await server.anonymous.post('/api/session/passkey', { credential: forgedAssertion('AAAA', challenge) });
    assert.equal(blocked.status, 429);
    const malformed = await server.anonymous.post('/api/session/passkey', { credential: { id: 'AAAA' } });
    assert.equal(malformed.status, 422);
    server.clock.advance(15 * 60_000);
  });

  it('refuses a registration answer that does not check out, and another account’s passkey', async () => {
    const account = await server.createAccount('publisher');
    await setPassword(server.server.context.db, account.id);
    const username = (await account.client.get('/api/me')).json().username;
    const browser = asBrowser(
      server,
      sessionOf(await server.anonymous.post('/api/session', { login: username, password: TEST_PASSWORD })),
    );
    const options = (await browser('POST', '/api/me/passkeys/options')).json();
    assert.equal(options.rp.id, 'ads.example.test');
    assert.equal(options.authenticatorSelection.residentKey, 'required');
    const credential = {
      id: 'AAAA',
      rawId: 'AAAA',
      type: 'public-key',
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64(
          JSON.stringify({ type: 'webauthn.create', challenge: options.challenge, origin: 'https://ads.example.test' }),
        ),
        attestationObject: b64('not cbor'),
      },
    };
    const refused = await browser('POST', '/api/me/passkeys', { name: 'Laptop', credential });
    assert.equal(refused.status, 422, refused.text);
    assert.equal(refused.json().errors[0].field, 'credential');
    // Another account's challenge does not register here either.
    const other = await server.createAccount('publisher');
    const theirs = (await other.client.post('/api/me/passkeys/options')).json();
    const crossed = {
      ...credential,
      response: {
        ...credential.response,
        clientDataJSON: b64(JSON.stringify({ type: 'webauthn.create', challenge: theirs.challenge })),
      },
    };
    assert.equal((await browser('POST', '/api/me/passkeys', { name: 'Laptop', credential: crossed })).status, 422);
    assert.deepEqual((await browser('GET', '/api/me/passkeys')).json(), []);
    assert.equal((await browser('DELETE', '/api/me/passkeys/1')).status, 404);
  });

  it('takes the relying party from PUBLIC_URL, else from the configured address, never from Host', () => {
    const request = { raw: { socket: { localPort: 8443 } }, headers: { host: 'evil.example' } } as unknown as FastifyRequest;
    const cases: [Parameters<typeof relyingPartyOf>[0], string, string][] = [
      [{ publicUrl: 'https://ads.example.com', host: '0.0.0.0' }, 'ads.example.com', 'https://ads.example.com'],
      [{ publicUrl: 'https://ads.example.com:9443', host: '0.0.0.0' }, 'ads.example.com', 'https://ads.example.com:9443'],
      [{ publicUrl: undefined, host: '0.0.0.0' }, 'localhost', 'https://localhost:8443'],
      [{ publicUrl: undefined, host: 'nativa.internal' }, 'nativa.internal', 'https://nativa.internal:8443'],
    ];
    for (const [config, id, origin] of cases) {
      const rp = relyingPartyOf(config, request);
      assert.deepEqual([rp.id, rp.origin], [id, origin], JSON.stringify(config));
    }
  });
});
