import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD } from '../../../helpers/accounts.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const DAY_MS = 86_400_000;

describe('where you are signed in: the session list and its absolute lifetime', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ env: { SESSION_MAX_AGE_DAYS: '20' } });
  });
  after(async () => {
    await server.close();
  });

  async function accountWithPassword() {
    const account = await server.createAccount('advertiser');
    await setPassword(server.server.context.db, account.id);
    return { ...account, username: (await account.client.get('/api/me')).json().username as string };
  }
  const signInAs = async (username: string, userAgent: string) =>
    sessionOf(
      await server.anonymous.post(
        '/api/session',
        { login: username, password: TEST_PASSWORD },
        { headers: { Origin: server.url, 'User-Agent': userAgent } },
      ),
    );

  it('lists each browser with its device, address and last request; ends one or all others (audited)', async () => {
    const account = await accountWithPassword();
    const laptop = asBrowser(server, await signInAs(account.username, FIREFOX));
    server.clock.advance(120_000);
    const phone = asBrowser(server, await signInAs(account.username, IPHONE));
    const third = asBrowser(server, await signInAs(account.username, ''));
    server.clock.advance(120_000);
    assert.equal((await laptop('GET', '/api/me')).status, 200, 'moves its last request');

    const list = (await laptop('GET', '/api/me/sessions')).json();
    assert.equal(list.length, 3);
    const [mostRecent] = list;
    assert.equal(mostRecent.current, true);
    assert.equal(mostRecent.device, 'Firefox 133 on Windows');
    assert.equal(mostRecent.userAgent, FIREFOX);
    assert.equal(mostRecent.address, '127.0.0.0', 'stored as its network: docs/privacy.md');
    assert.equal(mostRecent.method, 'password');
    assert.equal(mostRecent.lastSeen, new Date(server.clock.now()).toISOString());
    assert.deepEqual(
      list.map((session: { device: string }) => session.device).sort(),
      ['Firefox 133 on Windows', 'Mobile Safari 17 on iOS (mobile)', 'Unknown device'].sort(),
    );
    const phoneSession = list.find((session: { device: string }) => session.device.includes('iOS'));

    // Another account cannot see or end these sessions.
    const stranger = await server.createAccount('advertiser');
    assert.deepEqual((await stranger.client.get('/api/me/sessions')).json(), []);
    assert.equal((await stranger.client.delete(`/api/me/sessions/${phoneSession.id}`)).status, 404);

    assert.equal((await laptop('DELETE', `/api/me/sessions/${phoneSession.id}`)).status, 204);
    assert.equal((await phone('GET', '/api/me')).status, 401);
    assert.equal((await laptop('DELETE', `/api/me/sessions/${phoneSession.id}`)).status, 404, 'already ended');

    const others = await laptop('DELETE', '/api/me/sessions');
    assert.equal(others.status, 200);
    assert.deepEqual(others.json(), { ended: 1 });
    assert.equal((await third('GET', '/api/me')).status, 401);
    assert.equal((await laptop('GET', '/api/me')).status, 200, 'the one asking goes on');
    const actions = (await laptop('GET', '/api/me/audit')).json().map((entry: { action: string }) => entry.action);
    assert.deepEqual(actions.slice(0, 2), ['session.revoke_others', 'session.revoke']);
    assert.equal(actions.filter((action: string) => action === 'session.sign_in').length, 3);
  });

  it('ends a session at its absolute lifetime however busy it is, and says so in its cookie', async () => {
    const account = await accountWithPassword();
    const response = await server.anonymous.post(
      '/api/session',
      { login: account.username, password: TEST_PASSWORD },
      { headers: { Origin: server.url } },
    );
    assert.match(response.header('set-cookie') ?? '', /Max-Age=1209600;/, 'idle expiry first: 14 days');
    const browser = asBrowser(server, sessionOf(response));
    let lastCookie = '';
    for (let day = 1; day < 20; day += 1) {
      server.clock.advance(DAY_MS);
      const me = await browser('GET', '/api/me');
      assert.equal(me.status, 200, `day ${day}`);
      lastCookie = me.header('set-cookie') ?? lastCookie;
    }
    // On day 19 the cookie lives one more day, not 14: the absolute end comes first.
    assert.match(lastCookie, /Max-Age=86400;/);
    const [listed] = (await browser('GET', '/api/me/sessions')).json();
    assert.equal(Date.parse(listed.expires) - Date.parse(listed.created), 20 * DAY_MS);
    server.clock.advance(DAY_MS);
    assert.equal((await browser('GET', '/api/me')).status, 401, 'day 20: ended');
  });
});
