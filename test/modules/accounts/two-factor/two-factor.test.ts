import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../../src/db/database.ts';
import { ERRORS } from '../../../../src/errors.ts';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD, totpCode } from '../../../helpers/accounts.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

interface Enrolled {
  id: number;
  username: string;
  secret: string;
  recoveryCodes: string[];
  cookie: string;
}

describe('two-factor sign-in (TOTP and recovery codes)', () => {
  let server: TestServer;
  let db: Db;
  before(async () => {
    server = await startTestServer();
    db = server.server.context.db;
  });
  after(async () => {
    await server.close();
  });

  const signIn = (login: string, password = TEST_PASSWORD) =>
    server.anonymous.post('/api/session', { login, password }, { headers: { Origin: server.url } });
  const secondFactor = (ticket: string, code: string) =>
    server.anonymous.post('/api/session/second-factor', { ticket, code }, { headers: { Origin: server.url } });

  /** An account with a password, signed in, and enrolled through the API. */
  async function enrolledAccount(type: 'advertiser' | 'publisher' = 'advertiser'): Promise<Enrolled> {
    const account = await server.createAccount(type);
    await setPassword(db, account.id);
    const username = (await account.client.get('/api/me')).json().username;
    const cookie = sessionOf(await signIn(username));
    const browser = asBrowser(server, cookie);
    const enrolment = await browser('POST', '/api/me/two-factor/enrolment');
    assert.equal(enrolment.status, 200, enrolment.text);
    const { secret } = enrolment.json();
    const confirmed = await browser('POST', '/api/me/two-factor/enrolment/confirm', {
      code: totpCode(secret, server.clock.now()),
    });
    assert.equal(confirmed.status, 200, confirmed.text);
    return { id: account.id, username, secret, recoveryCodes: confirmed.json().recoveryCodes, cookie };
  }

  it('enrols with a secret, its QR URI and a confirming code; shows ten recovery codes once', async () => {
    const account = await server.createAccount('publisher');
    await setPassword(db, account.id);
    const me = (await account.client.get('/api/me')).json();
    const browser = asBrowser(server, sessionOf(await signIn(me.username)));
    assert.deepEqual((await browser('GET', '/api/me/two-factor')).json(), {
      enabled: false,
      enabledAt: null,
      recoveryCodesLeft: 0,
      required: false,
    });
    const enrolment = await browser('POST', '/api/me/two-factor/enrolment');
    assert.equal(enrolment.header('cache-control'), 'no-store');
    const { secret, uri } = enrolment.json();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const parsed = new URL(uri);
    assert.equal(parsed.protocol, 'otpauth:');
    assert.equal(parsed.searchParams.get('secret'), secret);
    assert.equal(parsed.searchParams.get('digits'), '6');
    assert.ok(decodeURIComponent(parsed.pathname).endsWith(me.username));

    const wrong = await browser('POST', '/api/me/two-factor/enrolment/confirm', { code: '000000' });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json().errors[0].field, 'code');
    // Until confirmed, the password alone still signs in.
    assert.equal((await signIn(me.username)).status, 200);

    const confirmed = await browser('POST', '/api/me/two-factor/enrolment/confirm', {
      code: totpCode(secret, server.clock.now()),
    });
    assert.equal(confirmed.status, 200, confirmed.text);
    const codes: string[] = confirmed.json().recoveryCodes;
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const code of codes) assert.match(code, /^[0-9a-hjkmnp-tv-z]{5}-[0-9a-hjkmnp-tv-z]{5}$/);
    const status = (await browser('GET', '/api/me/two-factor')).json();
    assert.equal(status.enabled, true);
    assert.equal(status.recoveryCodesLeft, 10);
    // The secret is never answered again.
    const restarted = await browser('POST', '/api/me/two-factor/enrolment');
    assert.equal(restarted.status, 409);
    assert.equal(restarted.json().code, ERRORS.two_factor_on.code);

    // At rest: neither the secret nor a recovery code is in the database as written.
    const stored = await db
      .selectFrom('totp_credentials')
      .selectAll()
      .where('account_id', '=', account.id)
      .executeTakeFirstOrThrow();
    const secretBytes = Buffer.from(parsed.searchParams.get('secret') ?? '', 'ascii');
    assert.equal(stored.sealed_secret.includes(secretBytes), false);
    assert.equal(stored.sealed_secret.toString('latin1').includes(secret), false);
    const hashes = await db.selectFrom('recovery_codes').select('code_hash').where('account_id', '=', account.id).execute();
    assert.equal(hashes.length, 10);
    for (const { code_hash } of hashes)
      for (const code of codes) assert.equal(code_hash.toString('latin1').includes(code), false);

    const audit = (await browser('GET', '/api/me/audit?action=two_factor.enable')).json();
    assert.equal(audit.length, 1);
    assert.equal(audit[0].objectId, String(account.id));
  });

  it('asks for the code after the password; a code works once; a ticket works once and for 5 minutes', async () => {
    const account = await enrolledAccount();
    server.clock.advance(60_000);
    const first = await signIn(account.username);
    assert.equal(first.status, 202, first.text);
    assert.equal(first.header('set-cookie'), undefined, 'no session before the second factor');
    const { ticket, secondFactor: kind, expires } = first.json();
    assert.equal(kind, 'totp');
    assert.equal(Date.parse(expires), server.clock.now() + 5 * 60_000);

    const wrong = await secondFactor(ticket, '123456');
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json().code, ERRORS.second_factor_failed.code);
    const code = totpCode(account.secret, server.clock.now());
    const opened = await secondFactor(ticket, code);
    assert.equal(opened.status, 200, opened.text);
    assert.equal(opened.json().id, account.id);
    const browser = asBrowser(server, sessionOf(opened));
    assert.equal((await browser('GET', '/api/me')).status, 200);

    // The same ticket, and the same code with a new ticket, are refused.
    assert.equal((await secondFactor(ticket, code)).status, 401);
    const again = (await signIn(account.username)).json().ticket;
    assert.equal((await secondFactor(again, code)).status, 401, 'a code is accepted once');
    server.clock.advance(30_000);
    assert.equal((await secondFactor(again, totpCode(account.secret, server.clock.now()))).status, 200);

    // A ticket past its 5 minutes, and a forged one, open nothing.
    const late = (await signIn(account.username)).json().ticket;
    server.clock.advance(5 * 60_000 + 1);
    const expired = await secondFactor(late, totpCode(account.secret, server.clock.now()));
    assert.equal(expired.status, 401);
    assert.equal(expired.json().code, ERRORS.sign_in_expired.code);
    const [payload, mac] = (await signIn(account.username)).json().ticket.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, a: 1 })).toString('base64url')}.${mac}`;
    assert.equal((await secondFactor(forged, totpCode(account.secret, server.clock.now()))).status, 401);

    const sessions = (await browser('GET', '/api/me/sessions')).json();
    assert.ok(sessions.some((session: { method: string }) => session.method === 'password+totp'));
    const signIns = (await browser('GET', '/api/me/audit?action=session.sign_in')).json();
    assert.ok(signIns.some((entry: { after: { method: string } }) => entry.after.method === 'password+totp'));
  });

  it('takes each recovery code once in place of the app code, and renews them with a code', async () => {
    const account = await enrolledAccount();
    const [code, other] = account.recoveryCodes;
    assert.ok(code && other);
    const ticket = (await signIn(account.username)).json().ticket;
    const opened = await secondFactor(ticket, code.toUpperCase().replace('-', ' '));
    assert.equal(opened.status, 200, 'case, spaces and dashes do not matter');
    const browser = asBrowser(server, sessionOf(opened));
    assert.equal((await browser('GET', '/api/me/two-factor')).json().recoveryCodesLeft, 9);
    assert.equal((await secondFactor((await signIn(account.username)).json().ticket, code)).status, 401, 'spent');
    assert.equal((await browser('GET', '/api/me/sessions')).json()[0].method, 'password+recovery-code');

    const renewWrong = await browser('POST', '/api/me/two-factor/recovery-codes', { code: '000000' });
    assert.equal(renewWrong.status, 422);
    server.clock.advance(30_000);
    const renewed = await browser('POST', '/api/me/two-factor/recovery-codes', {
      code: totpCode(account.secret, server.clock.now()),
    });
    assert.equal(renewed.status, 200, renewed.text);
    assert.equal(renewed.json().recoveryCodes.length, 10);
    assert.equal((await secondFactor((await signIn(account.username)).json().ticket, other)).status, 401, 'old codes die');
    const fresh = renewed.json().recoveryCodes[0];
    assert.equal((await secondFactor((await signIn(account.username)).json().ticket, fresh)).status, 200);
  });

  it('throttles wrong codes like wrong passwords: past five, even the right code is a 429', async () => {
    const account = await enrolledAccount('publisher');
    server.clock.advance(60_000);
    const ticket = (await signIn(account.username)).json().ticket;
    for (let attempt = 0; attempt < 5; attempt += 1) assert.equal((await secondFactor(ticket, '000000')).status, 401);
    const blocked = await secondFactor(ticket, totpCode(account.secret, server.clock.now()));
    assert.equal(blocked.status, 429);
    assert.equal(blocked.json().code, ERRORS.too_many_sign_ins.code);
    assert.ok(Number(blocked.header('retry-after')) > 0);
    assert.equal((await signIn(account.username)).status, 429, 'the password step shares the count');
    server.clock.advance(15 * 60_000);
  });

  it('turns off with a code (audited); an operator resets an account’s (audited) and the password alone signs in', async () => {
    const account = await enrolledAccount();
    const browser = asBrowser(server, account.cookie);
    server.clock.advance(30_000);
    assert.equal((await browser('DELETE', '/api/me/two-factor', { code: '000000' })).status, 422);
    const off = await browser('DELETE', '/api/me/two-factor', { code: totpCode(account.secret, server.clock.now()) });
    assert.equal(off.status, 204, off.text);
    assert.equal((await signIn(account.username)).status, 200);
    assert.equal((await browser('GET', '/api/me/audit?action=two_factor.disable')).json().length, 1);

    const other = await enrolledAccount('publisher');
    const otherBrowser = asBrowser(server, other.cookie);
    assert.equal((await otherBrowser('GET', '/api/me')).status, 200);
    const publisher = await server.createAccount('publisher');
    assert.equal((await publisher.client.delete(`/api/admin/users/${other.id}/two-factor`)).status, 403);
    const reset = await server.operator.delete(`/api/admin/users/${other.id}/two-factor`);
    assert.equal(reset.status, 204, reset.text);
    assert.equal((await otherBrowser('GET', '/api/me')).status, 401, 'the reset ends the account’s sessions');
    const none = await server.operator.delete(`/api/admin/users/${other.id}/two-factor`);
    assert.equal(none.status, 409);
    assert.equal(none.json().code, ERRORS.two_factor_off.code);
    assert.equal((await server.operator.delete('/api/admin/users/999999/two-factor')).status, 404);
    assert.equal((await signIn(other.username)).status, 200);
    const entries = (await server.operator.get(`/api/admin/audit?action=two_factor.reset&accountId=${other.id}`)).json();
    assert.equal(entries.length, 1);
    assert.equal(entries[0].subjectAccountId, other.id);
    assert.equal(entries[0].after?.sessionsEnded, 1);
  });
});

describe('REQUIRE_2FA_FOR=operator', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { REQUIRE_2FA_FOR: 'operator' } });
  });
  after(async () => {
    await server.close();
  });

  it('keeps an operator’s session to enrolment until it has two-factor sign-in, then lets it work', async () => {
    const operator = await server.createAccount('operator');
    await setPassword(server.server.context.db, operator.id);
    const username = (await operator.client.get('/api/me')).json().username;
    const signedIn = await server.anonymous.post(
      '/api/session',
      { login: username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    const browser = asBrowser(server, sessionOf(signedIn));
    const refused = await browser('GET', '/api/admin/users');
    assert.equal(refused.status, 403);
    assert.equal(refused.json().code, ERRORS.two_factor_required.code);
    assert.equal((await browser('GET', '/api/me')).status, 200);
    assert.equal((await browser('GET', '/api/me/two-factor')).json().required, true);
    // Its API token (scripts) is not held back.
    assert.equal((await operator.client.get('/api/admin/users')).status, 200);
    // Other kinds are not concerned.
    const advertiser = await server.createAccount('advertiser');
    await setPassword(server.server.context.db, advertiser.id);
    const advertiserName = (await advertiser.client.get('/api/me')).json().username;
    const advertiserSession = sessionOf(
      await server.anonymous.post(
        '/api/session',
        { login: advertiserName, password: TEST_PASSWORD },
        { headers: { Origin: server.url } },
      ),
    );
    assert.equal((await asBrowser(server, advertiserSession)('GET', '/api/advertiser/campaigns')).status, 200);

    const { secret } = (await browser('POST', '/api/me/two-factor/enrolment')).json();
    const confirmed = await browser('POST', '/api/me/two-factor/enrolment/confirm', {
      code: totpCode(secret, server.clock.now()),
    });
    assert.equal(confirmed.status, 200);
    assert.equal((await browser('GET', '/api/admin/users')).status, 200, 'the same session works once enrolled');
    server.clock.advance(30_000);
    const off = await browser('DELETE', '/api/me/two-factor', { code: totpCode(secret, server.clock.now()) });
    assert.equal(off.status, 409, 'it cannot be turned off where it is required');
    assert.equal(off.json().code, ERRORS.two_factor_mandatory.code);
  });
});
