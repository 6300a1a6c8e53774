// A refund tells both parties over their webhooks: one signed `clicks.refunded` event each, with
// that party's figures, delivered to a real HTTPS receiver; a dry run tells nobody.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { findOrCreatePlatformAccount } from '../../../src/modules/ledger/ledger.ts';
import { verifySignature } from '../../../src/modules/webhooks/signature.ts';
import { startTestServer, type TestServer, testTls } from '../../helpers/server.ts';
import { balanceOf, createWorld, DESKTOP_UA, engineOf, pathOf, type World } from '../../helpers/serving.ts';
import { waitFor } from '../../helpers/wait.ts';
import { WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const amountOf = (micros: number) => Math.round(micros / 100) / 10_000;

describe('refund webhooks: clicks.refunded to the advertiser and the publisher', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;

  before(async () => {
    const tls = await testTls();
    receiver = await new WebhookReceiver(tls).start();
    // Loopback is allowed here, and the receiver's self-signed certificate is trusted as an extra CA.
    server = await startTestServer({ config: { webhookAllowPrivate: true, webhookCa: tls.cert } });
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  /** Runs the delivery worker now and waits for its round to end. */
  const deliverDue = async () => {
    const deliverer = server.server.context.webhooks;
    deliverer.wake();
    await deliverer.idle();
  };

  /** Serves the block `loads` times and follows every teaser's link; returns the billed clicks' money. */
  async function clickThrough(world: World, loads: number) {
    for (let load = 0; load < loads; load += 1) {
      const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
        headers: { 'User-Agent': DESKTOP_UA },
      });
      for (const teaser of response.json<{ teasers: { url: string }[] }>().teasers) {
        const click = await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': DESKTOP_UA } });
        assert.equal(click.status, 302);
      }
    }
    await engineOf(server).settled();
    return server.server.context.db
      .selectFrom('clicks')
      .select(['click_id', 'charge_micros', 'publisher_micros'])
      .where('site_id', '=', world.siteId)
      .where('status', '=', 'billed')
      .orderBy('click_id')
      .execute();
  }

  it('sends each party one signed event with its figures after a refund, and none after a dry run', async () => {
    const db = server.server.context.db;
    const world = await createWorld(server);
    const clicks = await clickThrough(world, 3);
    assert.equal(clicks.length, 6);
    const clickIds = clicks.map((click) => click.click_id);
    const charge = clicks.reduce((sum, click) => sum + click.charge_micros, 0);
    const share = clicks.reduce((sum, click) => sum + click.publisher_micros, 0);
    const [first] = clicks;
    assert.ok(first);

    const advertiserHook = await world.advertiser.post('/api/advertiser/webhooks', {
      url: `${receiver.url}/advertiser`,
      events: ['clicks.refunded'],
    });
    assert.equal(advertiserHook.status, 201, advertiserHook.text);
    const publisherHook = await world.publisher.post('/api/webmaster/webhooks', {
      url: `${receiver.url}/publisher`,
      events: ['clicks.refunded'],
    });
    assert.equal(publisherHook.status, 201, publisherHook.text);
    const secrets = { advertiser: advertiserHook.json().secret, publisher: publisherHook.json().secret };

    // The publisher was paid out all but its first click's share (and 100 micro-units): the rest of
    // its share cannot be taken back, and the platform, funded for it, bears it.
    const keep = first.publisher_micros + 100;
    const payout = await server.operator.post('/api/admin/payouts', {
      userId: world.publisherId,
      amount: (share - keep) / 1_000_000,
      wallet: 'bank',
      status: 'paid',
    });
    assert.equal(payout.status, 201, payout.text);
    const platformId = await findOrCreatePlatformAccount(db);
    const funded = await server.operator.post(`/api/admin/users/${platformId}/balance`, { amount: 10, comment: 'reserve' });
    assert.equal(funded.status, 200, funded.text);
    assert.equal(await balanceOf(db, world.publisherId), keep);

    const body = { clickIds, reason: 'publisher_fraud', comment: 'a click farm' };
    const refunded = () => receiver.ofType('clicks.refunded');
    const dry = await server.operator.post('/api/admin/refunds', { ...body, dryRun: true });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.json().clicks, 6);
    await deliverDue();
    assert.equal(refunded().length, 0, 'a dry run sends nothing');
    const queued = await db.selectFrom('webhook_events').select('id').where('type', '=', 'clicks.refunded').execute();
    assert.deepEqual(queued, [], 'nor queues anything');

    const run = await server.operator.post('/api/admin/refunds', body);
    assert.equal(run.status, 201, run.text);
    const refund = run.json();
    await waitFor('both parties hear of the refund', () => refunded().length >= 2);
    // Another round of the worker (and a refused second refund of the same clicks) sends nothing more.
    const again = await server.operator.post('/api/admin/refunds', body);
    assert.equal(again.status, 422, again.text);
    await deliverDue();
    const hits = refunded();
    assert.deepEqual(hits.map((hit) => hit.path).sort(), ['/advertiser', '/publisher'], 'exactly one event each');

    const expected = {
      advertiser: {
        userId: world.advertiserId,
        data: {
          refundId: refund.id,
          reason: 'publisher_fraud',
          role: 'advertiser',
          clicks: 6,
          amount: amountOf(charge),
          unrecovered: 0,
        },
      },
      publisher: {
        userId: world.publisherId,
        data: {
          refundId: refund.id,
          reason: 'publisher_fraud',
          role: 'publisher',
          clicks: 6,
          amount: amountOf(keep),
          unrecovered: amountOf(share - keep),
        },
      },
    };
    for (const role of ['advertiser', 'publisher'] as const) {
      const hit = hits.find((candidate) => candidate.path === `/${role}`);
      assert.ok(hit);
      assert.equal(hit.event.userId, expected[role].userId, role);
      assert.deepEqual(hit.event.data, expected[role].data, role);
      assert.equal(hit.headers['nativa-event-type'], 'clicks.refunded');
      assert.equal(hit.headers['nativa-event-id'], hit.event.id);
      assert.equal(hit.event.created, new Date(server.clock.now()).toISOString());
      const nowSeconds = Math.floor(server.clock.now() / 1000);
      assert.ok(verifySignature(secrets[role], String(hit.headers['nativa-signature']), hit.body, nowSeconds), `${role}: signed`);
    }
    // The figures are the refund's own: what the advertiser got back and the publisher gave back.
    assert.equal(refund.amount, amountOf(charge));
    assert.equal(refund.publisherReversed, amountOf(keep));
    assert.equal(refund.publisherUnrecovered, amountOf(share - keep));
    assert.equal(await balanceOf(db, world.publisherId), 0);
  });
});
