import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../../../src/modules/accounts/password.ts';
import type { RequestOptions, TestResponse } from '../../../helpers/http-client.ts';
import { Mailbox } from '../../../helpers/mailbox.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

const PASSWORD = 'correct horse battery';

/** The value of the session cookie a response sets. */
function sessionOf(response: TestResponse): string {
  const cookie = response.header('set-cookie') ?? '';
  const value = /nativa_session=([^;]*)/.exec(cookie)?.[1];
  assert.ok(value, `no session cookie in ${cookie}`);
  return value;
}

describe('browser sessions, passwords and self-service tokens', () => {
  let server: TestServer;
  const mailbox = new Mailbox();
  before(async () => {
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}?from=ads@nativa.test` } });
  });
  after(async () => {
    await server.close();
    await mailbox.stop();
  });

  /** A request as a page of the server itself sends it: the cookie and this server's Origin. */
  const asBrowser = (cookie: string, method: string, path: string, body?: unknown, extra: RequestOptions = {}) =>
    server.anonymous.request(method, path, {
      body,
      ...extra,
      headers: { Cookie: `theme=dark; nativa_session=${cookie}`, Origin: server.url, ...extra.headers },
    });

  const signIn = (login: string, password: string, headers: Record<string, string> = { Origin: server.url }) =>
    server.anonymous.post('/api/session', { login, password }, { headers });

  /** An account whose password is known, set the supported way: the invitation link. */
  async function accountWithPassword(type: 'advertiser' | 'publisher' = 'advertiser') {
    const account = await server.createAccount(type);
    const me = (await account.client.get('/api/me')).json<{ username: string; email: string }>();
    const invitation = await mailbox.next(me.email);
    const token = /\/password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1];
    assert.ok(token, 'the invitation carries a link');
    const set = await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });
    assert.equal(set.status, 204, set.text);
    return { ...account, ...me };
  }

  it('invites a new account to choose its password; the link works once', async () => {
    const account = await server.createAccount('publisher');
    const me = (await account.client.get('/api/me')).json<{ username: string; email: string }>();
    const invitation = await mailbox.next(me.email);
    assert.match(invitation.text, /Subject: Your Nativa account: choose your password/);
    assert.match(invitation.text, new RegExp(`Your login is ${me.username}`));
    const token = /https:\/\/[^/\s]+\/password\?token=([A-Za-z0-9_-]+)/.exec(invitation.text)?.[1] ?? '';
    assert.equal((await signIn(me.username, PASSWORD)).status, 401, 'no password before the invitation is used');
    const short = await server.anonymous.post('/api/password-reset/confirm', { token, password: 'short' });
    assert.equal(short.status, 422);
    assert.deepEqual(
      short.json().errors.map((error: { field: string }) => error.field),
      ['password'],
    );
    assert.equal((await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD })).status, 204);
    const again = await server.anonymous.post('/api/password-reset/confirm', { token, password: 'another password' });
    assert.equal(again.status, 422);
    assert.equal(again.json().errors[0].field, 'token');
    assert.equal((await signIn(me.username, PASSWORD)).status, 200);
  });

  it('signs in by username or e-mail with a secure, HttpOnly, SameSite=Lax cookie that works on /api/me', async () => {
    const account = await accountWithPassword();
    const response = await signIn(account.username.toUpperCase(), PASSWORD);
    assert.equal(response.status, 200, response.text);
    assert.equal(response.json().id, account.id);
    const cookie = response.header('set-cookie') ?? '';
    assert.match(cookie, /^nativa_session=[A-Za-z0-9_-]{43}; /);
    for (const flag of ['HttpOnly', 'Secure', 'SameSite=Lax', 'Path=/', `Max-Age=${14 * 24 * 3600}`]) {
      assert.ok(cookie.split('; ').includes(flag), `${flag} in ${cookie}`);
    }
    // Beside it, a marker the app's script can read, so that pages without a session ask nothing.
    assert.match(cookie, /, nativa_signed_in=1; Max-Age=1209600; Path=\/; Secure; SameSite=Lax$/);
    const me = await asBrowser(sessionOf(response), 'GET', '/api/me');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.json().username, account.username);
    assert.ok(me.header('x-rate-limit-limit'), 'a session is rate limited like a token');

    const byEmail = await signIn(account.email, PASSWORD);
    assert.equal(byEmail.status, 200);
    assert.notEqual(sessionOf(byEmail), sessionOf(response), 'each sign-in is its own session');
    // The cookie value is stored only as its hash.
    const stored = await server.server.context.db.selectFrom('sessions').select('token_hash').execute();
    assert.ok(stored.every((row) => !row.token_hash.toString('base64url').includes(sessionOf(response))));
  });

  it('refuses state changes made with a session from another origin, and leaves Auth-Token alone', async () => {
    const account = await accountWithPassword();
    const cookie = sessionOf(await signIn(account.username, PASSWORD));
    const campaign = { title: 'From the browser', category_id: 2 };

    const foreign = await asBrowser(cookie, 'POST', '/api/advertiser/campaigns', campaign, {
      headers: { Origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403, foreign.text);
    const crossSite = await asBrowser(cookie, 'POST', '/api/advertiser/campaigns', campaign, {
      headers: { Origin: '', 'Sec-Fetch-Site': 'cross-site' },
    });
    assert.equal(crossSite.status, 403, 'no Origin and a cross-site fetch prove nothing');
    const listed = await asBrowser(cookie, 'GET', '/api/advertiser/campaigns', undefined, {
      headers: { Origin: 'https://evil.example' },
    });
    assert.equal(listed.status, 200, 'reads are not state changes');
    assert.equal(listed.json().length, 0, 'and nothing was created');

    const sameOrigin = await asBrowser(cookie, 'POST', '/api/advertiser/campaigns', campaign);
    assert.equal(sameOrigin.status, 201, sameOrigin.text);
    const fetchMetadata = await asBrowser(cookie, 'POST', '/api/advertiser/campaigns', campaign, {
      headers: { Origin: '', 'Sec-Fetch-Site': 'same-origin' },
    });
    assert.equal(fetchMetadata.status, 201, fetchMetadata.text);

    // A token needs no Origin, and a token wins over a cookie sent along.
    const withToken = await account.client.post('/api/advertiser/campaigns', campaign, {
      headers: { Cookie: 'nativa_session=not-a-session', Origin: 'https://evil.example' },
    });
    assert.equal(withToken.status, 201, withToken.text);

    // Signing in from another site's page is refused too (login CSRF).
    assert.equal((await signIn(account.username, PASSWORD, { Origin: 'https://evil.example' })).status, 403);
  });

  it('signs out: the session is revoked and the cookie deleted', async () => {
    const account = await accountWithPassword();
    const cookie = sessionOf(await signIn(account.username, PASSWORD));
    const other = sessionOf(await signIn(account.username, PASSWORD));
    const out = await asBrowser(cookie, 'DELETE', '/api/session');
    assert.equal(out.status, 204, out.text);
    assert.match(out.header('set-cookie') ?? '', /^nativa_session=; Max-Age=0;.*, nativa_signed_in=; Max-Age=0;/);
    const after = await asBrowser(cookie, 'GET', '/api/me');
    assert.equal(after.status, 401);
    assert.equal((await asBrowser(other, 'GET', '/api/me')).status, 200, 'other sessions go on');
    assert.equal((await asBrowser('made-up', 'GET', '/api/me')).status, 401);
  });

  it('slides the expiry with use and ends a session idle for 14 days', async () => {
    const account = await accountWithPassword();
    const cookie = sessionOf(await signIn(account.username, PASSWORD));
    server.clock.advance(10 * 24 * 3600_000);
    const used = await asBrowser(cookie, 'GET', '/api/me');
    assert.equal(used.status, 200);
    assert.match(used.header('set-cookie') ?? '', /Max-Age=1209600/, 'the cookie is renewed with the session');
    server.clock.advance(10 * 24 * 3600_000);
    assert.equal((await asBrowser(cookie, 'GET', '/api/me')).status, 200, '20 days after sign-in, 10 after last use');
    server.clock.advance(14 * 24 * 3600_000 + 1000);
    assert.equal((await asBrowser(cookie, 'GET', '/api/me')).status, 401);
  });

  it('throttles failed sign-ins per account and per address, the same for unknown logins', async () => {
    const account = await accountWithPassword();
    // Leave the window other tests used, so this one counts from zero.
    server.clock.advance(15 * 60_000);
    const wrong: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) wrong.push((await signIn(account.username, 'wrong password')).status);
    assert.deepEqual(wrong, [401, 401, 401, 401, 401]);
    const blocked = await signIn(account.username, PASSWORD);
    assert.equal(blocked.status, 429, 'even the right password waits');
    assert.ok(Number(blocked.header('retry-after')) > 0);
    assert.equal((await signIn(account.email, PASSWORD)).status, 429, 'the e-mail names the same account');

    const unknown: number[] = [];
    const bodies = new Set<string>();
    for (let attempt = 0; attempt < 6; attempt++) {
      const response = await signIn('nobody-here', 'wrong password');
      unknown.push(response.status);
      if (response.status === 401) bodies.add(response.text);
    }
    assert.deepEqual(unknown, [401, 401, 401, 401, 401, 429], 'an unknown login is throttled like an account');
    const wrongBody = (await signIn('someone-else', 'x')).text;
    assert.deepEqual([...bodies], [wrongBody]);

    // 5 + 5 + 1 failures from this address so far (a refused attempt is no failure); at 20 it is blocked for every login.
    for (let attempt = 0; attempt < 9; attempt++) await signIn(`guess${attempt}`, 'x');
    assert.equal((await signIn('fresh-login', 'x')).status, 429, 'the address has used its attempts');

    server.clock.advance(15 * 60_000);
    assert.equal((await signIn(account.username, PASSWORD)).status, 200, 'the next window starts afresh');
  });

  it('counts parallel wrong passwords before checking them: no more pass than the limit', async () => {
    const account = await accountWithPassword();
    server.clock.advance(15 * 60_000);
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async () => (await signIn(account.username, 'wrong password')).status),
    );
    assert.equal(statuses.filter((status) => status === 401).length, 5, 'five checked');
    assert.equal(statuses.filter((status) => status === 429).length, 25, 'the rest refused unchecked');
    assert.equal((await signIn(account.username, PASSWORD)).status, 429);
    server.clock.advance(15 * 60_000);
    assert.equal((await signIn(account.username, PASSWORD)).status, 200, 'a right password is no failure');
    assert.equal((await signIn(account.username, PASSWORD)).status, 200);
    server.clock.advance(15 * 60_000);
  });

  it('resets a forgotten password through an e-mailed link valid one hour, without revealing accounts', async () => {
    const account = await accountWithPassword();
    const cookie = sessionOf(await signIn(account.username, PASSWORD));
    const unknown = await server.anonymous.post('/api/password-reset', { login: 'no-such-account@example.test' });
    assert.equal(unknown.status, 202);
    const known = await server.anonymous.post('/api/password-reset', { login: account.email });
    assert.equal(known.status, 202);
    assert.equal(known.text, unknown.text);

    const mail = await mailbox.next(account.email);
    assert.match(mail.text, /Subject: Nativa: reset your password/);
    assert.match(mail.text, /within 60 minutes/);
    const token = /\/password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
    const newPassword = 'a brand new password';
    assert.equal((await server.anonymous.post('/api/password-reset/confirm', { token, password: newPassword })).status, 204);
    assert.equal((await asBrowser(cookie, 'GET', '/api/me')).status, 401, 'a reset ends every session');
    assert.equal((await signIn(account.username, PASSWORD)).status, 401);
    assert.equal((await signIn(account.username, newPassword)).status, 200);

    // A second link, used after its hour, does nothing.
    await server.anonymous.post('/api/password-reset', { login: account.username });
    const late = /\/password\?token=([A-Za-z0-9_-]+)/.exec((await mailbox.next(account.email)).text)?.[1] ?? '';
    server.clock.advance(3600_000 + 1000);
    const expired = await server.anonymous.post('/api/password-reset/confirm', { token: late, password: 'too late now!' });
    assert.equal(expired.status, 422);
    assert.equal((await signIn(account.username, newPassword)).status, 200);
  });

  it('builds e-mailed links on the configured address, whatever Host the request names', async () => {
    const evil = { headers: { Host: 'evil.example' } };
    const account = await accountWithPassword();
    assert.equal((await server.anonymous.post('/api/password-reset', { login: account.username }, evil)).status, 202);
    const reset = await mailbox.next(account.email);
    const parent = await server.createAccount('advertiser');
    await mailbox.next((await parent.client.get('/api/me')).json().email);
    const created = await parent.client.post(
      '/api/advertiser/users',
      { user: `hosted${process.pid}`, email: 'hosted@shop.test' },
      evil,
    );
    assert.equal(created.status, 201, created.text);
    const registration = await mailbox.next('hosted@shop.test');
    const invited = await server.operator.post(
      '/api/admin/users',
      { type: 'publisher', username: `invited${process.pid}`, email: 'invited@news.test' },
      evil,
    );
    assert.equal(invited.status, 201, invited.text);
    const invitation = await mailbox.next('invited@news.test');
    for (const mail of [reset, registration, invitation]) {
      assert.doesNotMatch(mail.text, /evil\.example/);
      const links = mail.text.match(/https:\/\/[^\s"<>]+/g) ?? [];
      assert.ok(links.length > 0, mail.text);
      for (const link of links) assert.ok(link.startsWith(`${server.url}/`), `${link} is on ${server.url}`);
    }
  });

  it('throttles reset e-mails per account and per address, answering every request alike', async () => {
    const db = server.server.context.db;
    const resetsOf = async (accountId: number) =>
      (
        await db
          .selectFrom('mail_outbox')
          .select('id')
          .where('account_id', '=', accountId)
          .where('kind', '=', 'password_reset')
          .execute()
      ).length;
    const account = await accountWithPassword();
    const other = await accountWithPassword();
    // Leave the windows other tests used, so this one counts from zero.
    server.clock.advance(3600_000);
    const answers = new Set<string>();
    for (let attempt = 0; attempt < 15; attempt++) {
      const login = attempt % 2 === 0 ? account.username : account.email;
      const response = await server.anonymous.post('/api/password-reset', { login });
      answers.add(`${response.status} ${response.text}`);
    }
    assert.equal(await resetsOf(account.id), 3, 'three links an hour per account, by username or e-mail alike');
    // 15 requests from this address so far: it has used its 10, so another account gets nothing either.
    const unknown = await server.anonymous.post('/api/password-reset', { login: 'nobody-at-all' });
    answers.add(`${unknown.status} ${unknown.text}`);
    const blocked = await server.anonymous.post('/api/password-reset', { login: other.username });
    answers.add(`${blocked.status} ${blocked.text}`);
    assert.equal(await resetsOf(other.id), 0, 'the address has used its requests');
    assert.deepEqual([...answers], [`202 ${unknown.text}`], 'every request got the same answer');

    server.clock.advance(3600_000);
    assert.equal((await server.anonymous.post('/api/password-reset', { login: other.username })).status, 202);
    assert.equal(await resetsOf(other.id), 1, 'the next hour starts afresh');
  });

  it('signs in with the generated password of a client account (its existing scrypt hash)', async () => {
    const account = await server.createAccount('advertiser');
    const me = (await account.client.get('/api/me')).json<{ email: string; username: string }>();
    await mailbox.next(me.email);
    // A hash as the client registration wrote them before sign-in existed.
    await server.server.context.db
      .updateTable('accounts')
      .set({ password_hash: await hashPassword('Generated9PassWd') })
      .where('id', '=', account.id)
      .execute();
    assert.equal((await signIn(me.username, 'Generated9PassWd')).status, 200);
  });

  it('sends a client account created by an advertiser a link to choose its password, and no password', async () => {
    const parent = await server.createAccount('advertiser');
    const client = await parent.client.post('/api/advertiser/users', { user: `client${process.pid}`, email: 'client@shop.test' });
    assert.equal(client.status, 201, client.text);
    const mail = await mailbox.next('client@shop.test');
    assert.doesNotMatch(mail.text, /password:/i, 'no e-mail carries a password');
    assert.match(mail.text, /Choose your password within 7 days/);
    const stored = await server.server.context.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', client.json().id)
      .executeTakeFirstOrThrow();
    assert.equal(stored.password_hash, null, 'no password exists until its owner chooses one');
    const token = /\/password\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1] ?? '';
    assert.equal((await server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD })).status, 204);
    const signedIn = await signIn('client@shop.test', PASSWORD);
    assert.equal(signedIn.status, 200, signedIn.text);
    assert.equal(signedIn.json().id, client.json().id);
  });

  it('changes a password knowing the current one; other sessions end, this one goes on', async () => {
    const account = await accountWithPassword();
    const cookie = sessionOf(await signIn(account.username, PASSWORD));
    const other = sessionOf(await signIn(account.username, PASSWORD));
    const wrong = await asBrowser(cookie, 'PUT', '/api/me/password', { current: 'not it at all', new: 'another password' });
    assert.equal(wrong.status, 422);
    assert.equal(wrong.json().errors[0].field, 'current');
    const changed = await asBrowser(cookie, 'PUT', '/api/me/password', { current: PASSWORD, new: 'another password' });
    assert.equal(changed.status, 204, changed.text);
    assert.equal((await asBrowser(cookie, 'GET', '/api/me')).status, 200);
    assert.equal((await asBrowser(other, 'GET', '/api/me')).status, 401);
    assert.equal((await signIn(account.username, 'another password')).status, 200);
  });

  it('lets an account create, list and revoke its own API tokens, and no one else’s', async () => {
    const account = await accountWithPassword();
    const stranger = await server.createAccount('advertiser');
    const cookie = sessionOf(await signIn(account.username, PASSWORD));
    const issued = await asBrowser(cookie, 'POST', '/api/me/tokens', { name: 'reporting script' });
    assert.equal(issued.status, 201, issued.text);
    const { id, token, name } = issued.json<{ id: number; token: string; name: string }>();
    assert.equal(name, 'reporting script');
    assert.match(issued.header('location') ?? '', new RegExp(`/api/me/tokens/${id}$`));
    const me = await server.anonymous.get('/api/me', { token });
    assert.equal(me.json().id, account.id);

    const listed = await asBrowser(cookie, 'GET', '/api/me/tokens');
    const names = listed.json<{ id: number; name: string; revoked: string | null }[]>();
    assert.ok(names.some((entry) => entry.id === id && entry.revoked === null));
    assert.ok(!listed.text.includes(token), 'a token is shown once');

    const strangerTokens = (await server.operator.get(`/api/admin/users/${stranger.id}/tokens`)).json<{ id: number }[]>();
    const strangerToken = strangerTokens[0]?.id ?? 0;
    assert.equal((await asBrowser(cookie, 'DELETE', `/api/me/tokens/${strangerToken}`)).status, 404);
    assert.equal((await stranger.client.get('/api/me')).status, 200, 'the stranger’s token still works');

    assert.equal((await asBrowser(cookie, 'DELETE', `/api/me/tokens/${id}`)).status, 204);
    assert.equal((await server.anonymous.get('/api/me', { token })).status, 401);
    assert.equal((await asBrowser(cookie, 'DELETE', `/api/me/tokens/${id}`)).status, 404);
  });

  it('keeps tenants apart: a session sees its own account only, and its kind’s entry point', async () => {
    const owner = await server.createAccount('advertiser');
    const created = await owner.client.post('/api/advertiser/campaigns', { title: 'Private', category_id: 2 });
    const campaignId = created.json<{ id: number }>().id;
    const other = await accountWithPassword();
    const cookie = sessionOf(await signIn(other.username, PASSWORD));
    assert.equal((await asBrowser(cookie, 'GET', `/api/advertiser/campaigns/${campaignId}`)).status, 404);
    assert.equal((await asBrowser(cookie, 'GET', `/api/admin/users/${owner.id}`)).status, 403);
    const publisher = await accountWithPassword('publisher');
    const publisherCookie = sessionOf(await signIn(publisher.username, PASSWORD));
    assert.equal((await asBrowser(publisherCookie, 'GET', '/api/advertiser/campaigns')).status, 403);
  });
});
