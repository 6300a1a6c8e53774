import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../helpers/assertions.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

const PASSWORD = 'correct horse battery';

/** The token of a set-password link. */
const tokenOf = (url: string) => {
  const token = /\/password\?token=([A-Za-z0-9_-]+)$/.exec(url)?.[1];
  assert.ok(token, `a set-password link: ${url}`);
  return token;
};

/**
 * Invitation links handed over by a person: an operator for any account, an advertiser for its
 * clients, on a server with no mail server (SMTP_URL unset), where the e-mailed link stays in the
 * outbox.
 */
describe('invitation links to hand over by hand', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const setPassword = (token: string) => server.anonymous.post('/api/password-reset/confirm', { token, password: PASSWORD });

  /** The link of the invitation e-mail queued for an account (the outbox shows it hidden; the table has it). */
  async function queuedLink(accountId: number): Promise<string> {
    const message = await server.server.context.db
      .selectFrom('mail_outbox')
      .select('body_text')
      .where('account_id', '=', accountId)
      .where('kind', '=', 'invitation')
      .executeTakeFirstOrThrow();
    const token = /\/password\?token=([A-Za-z0-9_-]+)/.exec(message.body_text)?.[1];
    assert.ok(token, 'the invitation e-mail carries a link');
    return token;
  }

  it('gives an operator a fresh single-use link, once, spending the earlier ones, in the audit trail', async () => {
    const account = await server.createAccount('publisher');
    const mailed = await queuedLink(account.id);

    const first = await server.operator.post(`/api/admin/users/${account.id}/invitation-link`);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.header('cache-control'), 'no-store');
    const { url, expires } = first.json<{ url: string; expires: string }>();
    assert.ok(url.startsWith(server.url), url);
    assert.equal(Date.parse(expires) - server.clock.now(), 7 * 24 * 3600_000);
    const second = (await server.operator.post(`/api/admin/users/${account.id}/invitation-link`)).json<{ url: string }>();
    assert.notEqual(second.url, url);

    // Only the newest works: the e-mailed link and the first copy were spent by the second.
    assertError(await setPassword(mailed), 422, 'json');
    assertError(await setPassword(tokenOf(url)), 422, 'json');
    assert.equal((await setPassword(tokenOf(second.url))).status, 204);
    assertError(await setPassword(tokenOf(second.url)), 422, 'json');

    // Now that it has a password, a link would be a way into the account: a reset is the way.
    const refused = await server.operator.post(`/api/admin/users/${account.id}/invitation-link`);
    assertError(refused, 409, 'json');
    assert.equal(refused.json().code, 4060);

    const audit = await server.operator.get(`/api/admin/audit?objectType=account&objectId=${account.id}`);
    const entries = audit.json<{ action: string }[]>().filter((entry) => entry.action === 'account.invitation_link');
    assert.equal(entries.length, 2, audit.text);
    assert.ok(!audit.text.includes(tokenOf(second.url)), 'the audit trail never holds a link');
  });

  it("gives an advertiser its own clients' links, and nobody else's", async () => {
    const advertiser = await server.createAccount('advertiser');
    const created = await advertiser.client.post('/api/advertiser/users', {
      user: `client_${process.pid}`,
      email: `client_${process.pid}@example.test`,
    });
    assert.equal(created.status, 201, created.text);
    const clientId = created.json<{ id: number }>().id;
    const link = await advertiser.client.post(`/api/advertiser/users/${clientId}/invitation-link`);
    assert.equal(link.status, 200, link.text);
    assert.equal((await setPassword(tokenOf(link.json<{ url: string }>().url))).status, 204);

    const other = await server.createAccount('advertiser');
    assertError(await other.client.post(`/api/advertiser/users/${clientId}/invitation-link`), 404, 'json');
    const publisher = await server.createAccount('publisher');
    assertError(await publisher.client.post(`/api/advertiser/users/${clientId}/invitation-link`), 403, 'json');
    assertError(await advertiser.client.post(`/api/admin/users/${clientId}/invitation-link`), 403, 'json');
  });
});
