import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD } from '../../helpers/accounts.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf } from '../../helpers/serving.ts';

describe('operators suspend, reinstate and edit accounts', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const desktop = { headers: { 'User-Agent': DESKTOP_UA } };
  const teasers = async (blockId: number) => {
    await engineOf(server).refresh();
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, desktop);
    return response.status === 200 ? response.json<{ teasers: unknown[] }>().teasers.length : 0;
  };

  async function signIn(login: string) {
    return server.anonymous.post('/api/session', { login, password: TEST_PASSWORD }, { headers: { Origin: server.url } });
  }

  it("ends the account's sessions and tokens, refuses its sign-in, and lets it in again once reinstated", async () => {
    const account = await server.createAccount('advertiser');
    const db = server.server.context.db;
    await setPassword(db, account.id);
    const me = (await account.client.get('/api/me')).json<{ username: string }>();
    const opened = await signIn(me.username);
    assert.equal(opened.status, 200, opened.text);
    const browser = asBrowser(server, sessionOf(opened));
    assert.equal((await browser('GET', '/api/me')).status, 200);

    const suspended = await server.operator.post(`/api/admin/users/${account.id}/suspension`, { reason: 'Unpaid invoices' });
    assert.equal(suspended.status, 200, suspended.text);
    const body = suspended.json<{ suspendedAt: string | null; suspensionReason: string }>();
    assert.ok(body.suspendedAt);
    assert.equal(body.suspensionReason, 'Unpaid invoices');

    assert.equal((await browser('GET', '/api/me')).status, 401, 'its session ended');
    assert.equal((await account.client.get('/api/me')).status, 401, 'its token was revoked');
    const refused = await signIn(me.username);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.json<{ code: number }>().code, 2012);
    assert.equal((await signIn('nobody-at-all')).status, 401, 'a wrong login still learns nothing');

    const listed = await server.operator.get(`/api/admin/users?q=${me.username}`);
    assert.equal(listed.json<{ suspensionReason: string }[]>()[0]?.suspensionReason, 'Unpaid invoices');
    const again = await server.operator.post(`/api/admin/users/${account.id}/suspension`, { reason: 'twice' });
    assert.equal(again.status, 409, again.text);

    const audit = await server.operator.get(`/api/admin/audit?accountId=${account.id}`);
    assert.match(audit.text, /account\.suspend/);

    const reinstated = await server.operator.delete(`/api/admin/users/${account.id}/suspension`);
    assert.equal(reinstated.status, 200, reinstated.text);
    assert.equal(reinstated.json<{ suspendedAt: string | null }>().suspendedAt, null);
    assert.equal((await signIn(me.username)).status, 200, 'it signs in again');
    assert.equal((await account.client.get('/api/me')).status, 401, 'revoked tokens stay revoked');
    assert.equal((await server.operator.delete(`/api/admin/users/${account.id}/suspension`)).status, 409);
  });

  it("stops serving a suspended advertiser's ads and a suspended publisher's blocks", async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 500_000 }] });
    assert.equal(await teasers(world.blockId), 1, 'the ad serves');

    const advertiser = await server.operator.post(`/api/admin/users/${world.advertiserId}/suspension`, { reason: 'fraud' });
    assert.equal(advertiser.status, 200, advertiser.text);
    assert.equal(await teasers(world.blockId), 0, "a suspended advertiser's ad does not serve");
    await server.operator.delete(`/api/admin/users/${world.advertiserId}/suspension`);
    assert.equal(await teasers(world.blockId), 1, 'it serves again once reinstated');

    const publisher = await server.operator.post(`/api/admin/users/${world.publisherId}/suspension`, { reason: 'bots' });
    assert.equal(publisher.status, 200, publisher.text);
    assert.equal(await teasers(world.blockId), 0, "a suspended publisher's block serves nothing");
    await server.operator.delete(`/api/admin/users/${world.publisherId}/suspension`);
    assert.equal(await teasers(world.blockId), 1);
  });

  it('refuses to suspend an operator, and is for operators only', async () => {
    const operator = await server.createAccount('operator');
    const refused = await server.operator.post(`/api/admin/users/${operator.id}/suspension`, { reason: 'no' });
    assert.equal(refused.status, 409, refused.text);
    const advertiser = await server.createAccount('advertiser');
    const self = await advertiser.client.post(`/api/admin/users/${advertiser.id}/suspension`, { reason: 'no' });
    assert.equal(self.status, 403, self.text);
    const missing = await server.operator.post('/api/admin/users/99999999/suspension', { reason: 'no' });
    assert.equal(missing.status, 404, missing.text);
    const empty = await server.operator.post(`/api/admin/users/${advertiser.id}/suspension`, { reason: '' });
    assert.equal(empty.status, 422, empty.text);
  });

  it('edits the fields given; a new e-mail must be free and is unconfirmed', async () => {
    const account = await server.createAccount('publisher');
    const other = await server.createAccount('publisher');
    const otherEmail = (await other.client.get('/api/me')).json<{ email: string }>().email;
    const edited = await server.operator.patch(`/api/admin/users/${account.id}`, {
      name: 'Новости Сибири',
      phone: '+7 900 000 00 00',
      email: 'new-address@example.com',
      language: 'ru',
    });
    assert.equal(edited.status, 200, edited.text);
    const user = edited.json<{ name: string; phone: string; email: string; emailConfirmed: boolean; language: string }>();
    assert.deepEqual(
      { name: user.name, phone: user.phone, email: user.email, confirmed: user.emailConfirmed, language: user.language },
      { name: 'Новости Сибири', phone: '+7 900 000 00 00', email: 'new-address@example.com', confirmed: false, language: 'ru' },
    );
    const taken = await server.operator.patch(`/api/admin/users/${account.id}`, { email: otherEmail.toUpperCase() });
    assert.equal(taken.status, 422, taken.text);
    assert.equal(taken.json<{ errors: { field: string }[] }>().errors[0]?.field, 'email');
    const unknown = await server.operator.patch(`/api/admin/users/${account.id}`, { balance: 100 });
    assert.equal(unknown.status, 422, unknown.text);
    const notOperator = await account.client.patch(`/api/admin/users/${account.id}`, { name: 'x' });
    assert.equal(notOperator.status, 403);
    const read = (await server.operator.get(`/api/admin/users/${account.id}`)).json<{ name: string; email: string }>();
    assert.equal(read.email, 'new-address@example.com', 'the refused change changed nothing');
  });
});
