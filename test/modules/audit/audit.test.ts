import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Db } from '../../../src/db/database.ts';
import { hashPassword } from '../../../src/modules/accounts/password.ts';
import type { TestClient } from '../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

/**
 * The audit trail (docs/adr/0013): every operator action and every money
 * movement is recorded with its actor, object, before/after and time, in the action's own
 * transaction; operators read all of it, every account its own; rows are append-only.
 */

interface Entry {
  id: number;
  time: string;
  actor: {
    accountId: number | null;
    kind: string;
    tokenId: number | null;
    sessionId: number | null;
    address: string;
    requestId: string;
  };
  action: string;
  objectType: string;
  objectId: string;
  subjectAccountId: number | null;
  before: unknown;
  after: unknown;
}

describe('audit trail', () => {
  let server: TestServer;
  let db: Db;
  let advertiser: { id: number; client: TestClient };
  let publisher: { id: number; client: TestClient };
  let operatorTokenId: number;

  before(async () => {
    server = await startTestServer();
    db = server.server.context.db;
    advertiser = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
    const token = await db.selectFrom('api_tokens').select('id').orderBy('id').executeTakeFirstOrThrow();
    operatorTokenId = token.id;
  });
  after(() => server.close());

  const adminAudit = async (query: string): Promise<Entry[]> => {
    const response = await server.operator.get(`/api/admin/audit?${query}`);
    assert.equal(response.status, 200, response.text);
    return response.json();
  };

  it('records an operator credit with its actor, request, before and after', async () => {
    const response = await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, {
      amount: 12.5,
      comment: 'welcome',
    });
    assert.equal(response.status, 200);
    const [entry] = await adminAudit(`action=balance.credit&objectId=${advertiser.id}&objectType=account`);
    assert.ok(entry);
    assert.equal(entry.actor.kind, 'operator');
    assert.equal(entry.actor.tokenId, operatorTokenId);
    assert.equal(entry.actor.sessionId, null);
    assert.equal(entry.actor.address, '127.0.0.0', 'the network only: docs/privacy.md');
    assert.equal(entry.actor.requestId, response.header('X-Request-Id'));
    assert.equal(entry.subjectAccountId, advertiser.id);
    assert.deepEqual(entry.before, { balanceMicros: 0 });
    assert.deepEqual(entry.after, { balanceMicros: 12_500_000, comment: 'welcome' });
    assert.equal(entry.time, new Date(server.clock.now()).toISOString());
  });

  it('records client balance moves and payouts; a refused action records nothing', async () => {
    const created = await advertiser.client.post('/api/advertiser/users', {
      user: `audited_${process.pid}`,
      email: `audited_${process.pid}@example.test`,
    });
    const clientId = created.json().id as number;
    assert.equal((await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 2 })).status, 200);
    const refused = await advertiser.client.put(`/api/advertiser/users/${clientId}`, { balance: 1_000 });
    assert.equal(refused.status, 422);
    const moves = await adminAudit(`action=client.balance_move&objectId=${clientId}`);
    assert.equal(moves.length, 1, 'only the move that happened');
    assert.equal(moves[0]?.actor.accountId, advertiser.id);
    assert.deepEqual(moves[0]?.after, { balanceMicros: 2_000_000 });

    await server.operator.post(`/api/admin/users/${publisher.id}/balance`, { amount: 10, comment: 'earned' });
    const payout = await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: 4, wallet: 'iban:1' });
    assert.equal(payout.status, 201);
    const changed = await server.operator.put(`/api/admin/payouts/${payout.json().id}`, { status: 'cancelled' });
    assert.equal(changed.status, 200);
    const payoutEntries = await adminAudit(`objectType=payout&objectId=${payout.json().id}`);
    assert.deepEqual(
      payoutEntries.map((entry) => [entry.action, entry.before, entry.after]),
      [
        [
          'payout.status',
          { amountMicros: 4_000_000, wallet: 'iban:1', status: 'pending' },
          { amountMicros: 4_000_000, wallet: 'iban:1', status: 'cancelled' },
        ],
        ['payout.create', null, { amountMicros: 4_000_000, wallet: 'iban:1', status: 'pending' }],
      ],
    );
  });

  it('records moderation, categories and tokens', async () => {
    const site = await publisher.client.post('/api/webmaster/sites', {
      url: `https://audited-${process.pid}.example`,
      category_id: 1,
    });
    assert.equal(site.status, 201, site.text);
    assert.equal((await server.operator.put(`/api/admin/sites/${site.json().id}`, { status: 1 })).status, 200);
    const category = await server.operator.post('/api/admin/categories', { title: 'Audited' });
    assert.equal(category.status, 201);
    assert.equal((await server.operator.put(`/api/admin/categories/${category.json().id}`, { title: 'Audited 2' })).status, 200);
    assert.equal((await server.operator.delete(`/api/admin/categories/${category.json().id}`)).status, 204);
    const unconfirmed = await advertiser.client.post('/api/advertiser/users', {
      user: `unconfirmed_${process.pid}`,
      email: `unconfirmed_${process.pid}@example.test`,
    });
    const resent = await server.operator.post(`/api/admin/users/${unconfirmed.json().id}/confirmation`);
    assert.equal(resent.status, 201, resent.text);
    const [confirmation] = await adminAudit(`action=account.confirmation_sent&objectId=${unconfirmed.json().id}`);
    assert.equal(confirmation?.after && (confirmation.after as { outboxId: number }).outboxId, resent.json().id);
    const issued = await server.operator.post(`/api/admin/users/${publisher.id}/tokens`, { name: 'ci' });
    assert.equal((await server.operator.delete(`/api/admin/tokens/${issued.json().id}`)).status, 204);

    const campaign = await advertiser.client.post('/api/advertiser/campaigns', { title: 'Moderated', category_id: 2 });
    assert.equal((await server.operator.put(`/api/admin/campaigns/${campaign.json().id}`, { status: 1 })).status, 200);
    assert.equal((await server.operator.put(`/api/admin/campaigns/999999`, { status: 1 })).status, 404);
    const [decision] = await adminAudit(`action=campaign.moderate&objectId=${campaign.json().id}`);
    // The decision's reason is recorded too: none for an approval.
    assert.deepEqual([decision?.before, decision?.after], [{ status: 0 }, { status: 1, reason: null }]);
    // Every kind's decision is about its owner, who reads it in its own trail.
    assert.equal(decision?.subjectAccountId, advertiser.id);
    assert.equal((await adminAudit('action=campaign.moderate&objectId=999999')).length, 0);
    const [moderated] = await adminAudit(`action=site.moderate&objectId=${site.json().id}`);
    assert.equal(moderated?.subjectAccountId, publisher.id);
    assert.deepEqual([moderated?.before, moderated?.after], [{ status: 0 }, { status: 1, reason: null }]);
    const categoryEntries = await adminAudit(`objectType=category&objectId=${category.json().id}`);
    assert.deepEqual(
      categoryEntries.map((entry) => [entry.action, entry.before, entry.after]),
      [
        ['category.delete', { title: 'Audited 2', parentId: null }, null],
        ['category.edit', { title: 'Audited', parentId: null }, { title: 'Audited 2', parentId: null }],
        ['category.create', null, { title: 'Audited', parentId: null }],
      ],
    );
    const tokenEntries = await adminAudit(`objectType=token&objectId=${issued.json().id}`);
    assert.deepEqual(
      tokenEntries.map((entry) => entry.action),
      ['token.revoke', 'token.issue'],
    );
    assert.ok(!JSON.stringify(tokenEntries).includes(issued.json().token), 'a token never reaches the trail');
  });

  it('filters by account, actor kind and period, paginated', async () => {
    const aboutPublisher = await adminAudit(`accountId=${publisher.id}`);
    assert.ok(aboutPublisher.length >= 3);
    for (const entry of aboutPublisher)
      assert.ok(entry.actor.accountId === publisher.id || entry.subjectAccountId === publisher.id);
    const byAdvertisers = await adminAudit('actorKind=advertiser');
    assert.ok(byAdvertisers.length >= 1);
    for (const entry of byAdvertisers) assert.equal(entry.actor.kind, 'advertiser');
    const now = server.clock.now();
    assert.equal((await adminAudit(`from=${new Date(now + 1).toISOString()}`)).length, 0);
    assert.ok((await adminAudit(`to=${new Date(now + 1).toISOString()}`)).length > 0);
    const page = await server.operator.get('/api/admin/audit?per-page=2');
    assert.equal(page.json().length, 2);
    assert.ok(Number(page.header('X-Pagination-Total-Count')) > 2);
  });

  it('each account reads its own entries; others’ details are hidden from it', async () => {
    const own = await advertiser.client.get('/api/me/audit');
    assert.equal(own.status, 200);
    const entries: Entry[] = own.json();
    assert.ok(entries.length >= 2);
    for (const entry of entries) assert.ok(entry.actor.accountId === advertiser.id || entry.subjectAccountId === advertiser.id);
    const credit = entries.find((entry) => entry.action === 'balance.credit');
    assert.ok(credit, 'the operator’s credit of my balance is mine to see');
    assert.equal(credit.actor.address, '');
    assert.equal(credit.actor.tokenId, null);
    const move = entries.find((entry) => entry.action === 'client.balance_move');
    assert.equal(move?.actor.address, '127.0.0.0');

    const stranger = await server.createAccount('advertiser');
    const theirs: Entry[] = (await stranger.client.get('/api/me/audit')).json();
    assert.ok(theirs.every((entry) => entry.actor.accountId === stranger.id || entry.subjectAccountId === stranger.id));
    assert.equal((await advertiser.client.get('/api/admin/audit')).status, 403);
    assert.equal((await server.anonymous.get('/api/me/audit')).status, 401);
  });

  it('records the browser session an action came with', async () => {
    const password = 'correct horse battery';
    await db
      .updateTable('accounts')
      .set({ password_hash: await hashPassword(password) })
      .where('id', '=', advertiser.id)
      .execute();
    const username = (await advertiser.client.get('/api/me')).json().username;
    const signedIn = await server.anonymous.post(
      '/api/session',
      { login: username, password },
      { headers: { Origin: server.url } },
    );
    assert.equal(signedIn.status, 200, signedIn.text);
    const cookie = /nativa_session=([^;]*)/.exec(signedIn.header('set-cookie') ?? '')?.[1];
    const clientId = (await advertiser.client.get('/api/advertiser/users')).json()[0].id;
    const moved = await server.anonymous.put(
      `/api/advertiser/users/${clientId}`,
      { balance: 0.5 },
      { headers: { Cookie: `nativa_session=${cookie}`, Origin: server.url } },
    );
    assert.equal(moved.status, 200, moved.text);
    const [entry] = await adminAudit(`action=client.balance_move&objectId=${clientId}`);
    assert.equal(entry?.actor.accountId, advertiser.id);
    assert.equal(entry?.actor.tokenId, null);
    assert.ok(typeof entry?.actor.sessionId === 'number' && entry.actor.sessionId > 0);
    assert.equal(entry?.actor.requestId, moved.header('X-Request-Id'));
  });

  it('is append-only: the table refuses UPDATE and DELETE', async () => {
    await assert.rejects(sql`UPDATE audit_entries SET action = 'forged'`.execute(db), /append-only/);
    await assert.rejects(sql`DELETE FROM audit_entries`.execute(db), /append-only/);
  });
});
