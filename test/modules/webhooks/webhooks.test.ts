import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifySignature } from '../../../src/modules/webhooks/signature.ts';
import { createCampaign } from '../../helpers/advertiser.ts';
import { startTestServer, type TestServer, testTls } from '../../helpers/server.ts';
import { waitFor } from '../../helpers/wait.ts';
import { WebhookReceiver } from '../../helpers/webhook-receiver.ts';

type Account = Awaited<ReturnType<TestServer['createAccount']>>;

const HOUR = 3_600_000;

describe('webhooks', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let advertiser: Account;
  let publisher: Account;

  before(async () => {
    const tls = await testTls();
    receiver = await new WebhookReceiver(tls).start();
    // Loopback is allowed here, and the receiver's self-signed certificate is trusted as an extra CA.
    server = await startTestServer({ config: { webhookAllowPrivate: true, webhookCa: tls.cert } });
    advertiser = await server.createAccount('advertiser');
    publisher = await server.createAccount('publisher');
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const register = async (account: Account, path: string, fields: Record<string, unknown>) => {
    const response = await account.client.post(`/api/${path}/webhooks`, { url: `${receiver.url}/${path}`, ...fields });
    assert.equal(response.status, 201, response.text);
    return response.json<{ id: number; secret: string; events: string[] }>();
  };
  const deliverer = () => server.server.context.webhooks;
  /** Runs the worker now (the manual clock decides what is due) and waits for its round to end. */
  const deliverDue = async () => {
    deliverer().wake();
    await deliverer().idle();
  };

  it('delivers an event of the change, signed, once, to the account and to operators', async () => {
    const mine = await register(advertiser, 'advertiser', { events: ['campaign.moderated', 'client.created'] });
    assert.match(mine.secret, /^whsec_/);
    const platform = await register({ ...advertiser, client: server.operator }, 'admin', { events: ['campaign.moderated'] });
    const campaignId = await createCampaign(advertiser.client);
    const decided = await server.operator.put(`/api/admin/campaigns/${campaignId}`, { status: 1 });
    assert.equal(decided.status, 200, decided.text);
    const seen = await waitFor('both deliveries', () => {
      const hits = receiver.ofType('campaign.moderated').filter((hit) => hit.event.data.campaignId === campaignId);
      return hits.length === 2 && hits;
    });
    assert.ok(seen);
    await deliverDue();
    for (const hit of seen) {
      assert.equal(hit.headers['nativa-event-id'], hit.event.id);
      assert.equal(hit.headers['nativa-event-type'], 'campaign.moderated');
    }
    const forAdvertiser = seen.find((hit) =>
      verifySignature(mine.secret, String(hit.headers['nativa-signature']), hit.body, nowSeconds()),
    );
    const forOperator = seen.find((hit) =>
      verifySignature(platform.secret, String(hit.headers['nativa-signature']), hit.body, nowSeconds()),
    );
    assert.ok(forAdvertiser && forOperator && forAdvertiser !== forOperator, 'each endpoint signs with its own secret');
    assert.deepEqual(forAdvertiser.event.data, { campaignId, status: 1 });
    assert.equal(forAdvertiser.event.userId, advertiser.id);
    assert.equal(forAdvertiser.event.id, forOperator.event.id, 'one event, one id, on every endpoint');

    const deliveries = (await advertiser.client.get(`/api/advertiser/webhooks/${mine.id}/deliveries`)).json();
    assert.equal(deliveries[0].status, 'delivered');
    assert.equal(deliveries[0].attempts, 1);
    const log = (await advertiser.client.get(`/api/advertiser/webhooks/${mine.id}/attempts`)).json();
    assert.equal(log[0].statusCode, 200);
    assert.equal(log[0].response, 'ok');
    assert.ok(log[0].latencyMs >= 0);
    await server.operator.delete(`/api/admin/webhooks/${platform.id}`);
    await advertiser.client.delete(`/api/advertiser/webhooks/${mine.id}`);
  });

  const nowSeconds = () => Math.floor(server.clock.now() / 1000);

  it('writes nothing when the change is refused, and emits client and payout events', async () => {
    const endpoint = await register(advertiser, 'advertiser', { events: ['client.created'] });
    const before = receiver.ofType('client.created').length;
    // A refused client is a 422: no client, no event.
    const clash = await advertiser.client.post('/api/advertiser/users', { user: 'x', email: 'bad' });
    assert.equal(clash.status, 422);
    const client = await advertiser.client.post('/api/advertiser/users', {
      user: `client_${process.pid}`,
      email: 'c@example.test',
    });
    assert.equal(client.status, 201, client.text);
    const hit = await waitFor('client.created', () => receiver.ofType('client.created')[before]);
    assert.ok(hit);
    assert.equal(hit.event.data.clientId, client.json().id);
    assert.equal(receiver.ofType('client.created').length, before + 1);

    const pubHook = await register(publisher, 'webmaster', { events: ['payout.created', 'payout.paid', 'payout.cancelled'] });
    await server.operator.post(`/api/admin/users/${publisher.id}/balance`, { amount: '50', comment: 'revenue' });
    const payout = await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: '20', wallet: 'iban:1' });
    assert.equal(payout.status, 201, payout.text);
    await server.operator.put(`/api/admin/payouts/${payout.json().id}`, { status: 'cancelled' });
    await waitFor('payout events', () => receiver.ofType('payout.cancelled').length === 1);
    assert.deepEqual(
      receiver.received.filter((got) => got.event.type.startsWith('payout.')).map((got) => got.event.type),
      ['payout.created', 'payout.cancelled'],
    );
    await advertiser.client.delete(`/api/advertiser/webhooks/${endpoint.id}`);
    await publisher.client.delete(`/api/webmaster/webhooks/${pubHook.id}`);
  });

  it('fires balance.below_threshold when a movement crosses the threshold downwards', async () => {
    const payer = await server.createAccount('advertiser');
    await server.operator.post(`/api/admin/users/${payer.id}/balance`, { amount: '100', comment: 'deposit' });
    const endpoint = await register(payer, 'advertiser', { events: ['balance.below_threshold'], balanceThreshold: '30' });
    const mine = () => receiver.ofType('balance.below_threshold').filter((hit) => hit.event.userId === payer.id);
    // 100 → 60: above the threshold; 60 → 25: crosses it; 25 → 20: already below, no second event.
    for (const amount of ['-40', '-35', '-5']) {
      const moved = await server.operator.post(`/api/admin/users/${payer.id}/balance`, { amount, comment: 'withdrawal' });
      assert.equal(moved.status, 200, moved.text);
    }
    await waitFor('the crossing', () => mine().length === 1);
    await deliverDue();
    assert.equal(mine().length, 1);
    assert.deepEqual(mine()[0]?.event.data, { balance: 25, threshold: 30 });
    await payer.client.delete(`/api/advertiser/webhooks/${endpoint.id}`);
  });

  it('refuses events of another kind of account, bad URLs and other accounts’ endpoints', async () => {
    const wrongKind = await publisher.client.post('/api/webmaster/webhooks', {
      url: receiver.url,
      events: ['campaign.moderated'],
    });
    assert.equal(wrongKind.status, 422);
    assert.equal(wrongKind.json().errors[0].field, 'events');
    const http = await advertiser.client.post('/api/advertiser/webhooks', {
      url: 'http://93.184.216.34/',
      events: ['client.created'],
    });
    assert.equal(http.status, 422);
    assert.equal(http.json().errors[0].field, 'url');
    const unknown = await advertiser.client.post('/api/advertiser/webhooks', { url: receiver.url, events: ['no.such'] });
    assert.equal(unknown.status, 422);
    const mine = await register(advertiser, 'advertiser', { events: ['client.created'] });
    const other = await server.createAccount('advertiser');
    assert.equal((await other.client.get(`/api/advertiser/webhooks/${mine.id}`)).status, 404);
    assert.equal((await other.client.post(`/api/advertiser/webhooks/${mine.id}/test`)).status, 404);
    assert.equal((await publisher.client.get('/api/advertiser/webhooks')).status, 403);
    assert.equal((await server.anonymous.get('/api/advertiser/webhooks')).status, 401);
    await advertiser.client.delete(`/api/advertiser/webhooks/${mine.id}`);
    assert.equal((await advertiser.client.get(`/api/advertiser/webhooks/${mine.id}`)).status, 404);
  });

  it('retries with backoff on the injected clock, fails after 24 hours, and redelivers on demand', async () => {
    const endpoint = await register(advertiser, 'advertiser', { events: ['client.created'] });
    receiver.answer = () => ({ status: 503, body: 'down for maintenance' });
    const test = await advertiser.client.post(`/api/advertiser/webhooks/${endpoint.id}/test`);
    assert.equal(test.status, 202, test.text);
    const deliveryId = test.json().id;
    const deliveryOf = async () => (await advertiser.client.get(`/api/advertiser/webhooks/${endpoint.id}/deliveries`)).json()[0];
    const attempted = await waitFor('the first attempt', async () => {
      const delivery = await deliveryOf();
      return delivery.attempts === 1 && delivery;
    });
    const created = server.clock.now();
    assert.equal(attempted.status, 'pending');
    assert.equal(attempted.nextAttemptAt, new Date(created + 60_000).toISOString());
    // Not due yet: nothing is sent.
    await deliverDue();
    assert.equal((await deliveryOf()).attempts, 1);
    server.clock.advance(60_000);
    await deliverDue();
    const second = await deliveryOf();
    assert.equal(second.attempts, 2);
    assert.equal(second.nextAttemptAt, new Date(created + 3 * 60_000).toISOString());
    // Attempt after attempt until the 24 hours are over.
    let attempts = 2;
    while ((await deliveryOf()).status === 'pending') {
      server.clock.set(new Date((await deliveryOf()).nextAttemptAt).getTime());
      await deliverDue();
      attempts += 1;
      assert.ok(attempts < 30);
    }
    const failed = await deliveryOf();
    assert.equal(failed.status, 'failed');
    assert.equal(failed.nextAttemptAt, null);
    assert.equal(server.clock.now(), created + 24 * HOUR);
    const log = (await advertiser.client.get(`/api/advertiser/webhooks/${endpoint.id}/attempts?per-page=100`)).json();
    assert.equal(log.length, failed.attempts);
    assert.equal(log[0].statusCode, 503);
    assert.equal(log[0].response, 'down for maintenance');
    assert.equal(log[0].error, 'answered 503');
    // The failure switched the endpoint off and told its owner, audited as the system's doing.
    assert.equal((await advertiser.client.get(`/api/advertiser/webhooks/${endpoint.id}`)).json().active, false);
    const notices = (await advertiser.client.get('/api/notifications')).json();
    const disabled = notices.find((notice: { kind: string }) => notice.kind === 'webhook.disabled');
    assert.equal(disabled.data.endpointId, endpoint.id);
    assert.match(disabled.text, /was switched off: a delivery to it failed for 24 hours/);
    const [audited] = (await server.operator.get(`/api/admin/audit?action=webhook.disable&objectId=${endpoint.id}`)).json();
    assert.equal(audited.actor.kind, 'system');

    receiver.answer = () => ({ status: 204 });
    const again = await advertiser.client.post(`/api/advertiser/webhooks/${endpoint.id}/deliveries/${deliveryId}/redeliver`);
    assert.equal(again.status, 202, again.text);
    await waitFor('the redelivery', async () => (await deliveryOf()).status === 'delivered');
    const tests = receiver.ofType('webhook.test').filter((hit) => hit.event.data.endpointId === endpoint.id);
    assert.equal(new Set(tests.map((hit) => hit.event.id)).size, 1, 'every attempt carries the same event id');
    receiver.answer = () => ({ status: 200, body: 'ok' });
    await advertiser.client.delete(`/api/advertiser/webhooks/${endpoint.id}`);
  });

  it('does not follow redirects', async () => {
    const endpoint = await register(advertiser, 'advertiser', { events: ['client.created'] });
    receiver.answer = () => ({ status: 302, body: '' });
    await advertiser.client.post(`/api/advertiser/webhooks/${endpoint.id}/test`);
    const log = await waitFor('the attempt', async () => {
      const rows = (await advertiser.client.get(`/api/advertiser/webhooks/${endpoint.id}/attempts`)).json();
      return rows.length > 0 && rows;
    });
    assert.equal(log[0].statusCode, 302);
    assert.match(log[0].error, /redirects are not followed/);
    receiver.answer = () => ({ status: 200, body: 'ok' });
    await advertiser.client.delete(`/api/advertiser/webhooks/${endpoint.id}`);
  });

  it('rotates the secret: both sign during the grace period, then only the new one', async () => {
    const endpoint = await register(advertiser, 'advertiser', { events: ['client.created'] });
    const rotated = await advertiser.client.post(`/api/advertiser/webhooks/${endpoint.id}/secret`, { graceSeconds: 3600 });
    assert.equal(rotated.status, 200, rotated.text);
    const { secret } = rotated.json();
    assert.notEqual(secret, endpoint.secret);
    const signedTest = async () => {
      const before = receiver.ofType('webhook.test').length;
      await advertiser.client.post(`/api/advertiser/webhooks/${endpoint.id}/test`);
      return waitFor('the test event', () => receiver.ofType('webhook.test')[before]);
    };
    const during = await signedTest();
    assert.ok(during);
    const header = String(during.headers['nativa-signature']);
    assert.equal(header.split(',').length, 3);
    assert.ok(verifySignature(secret, header, during.body, nowSeconds()));
    assert.ok(verifySignature(endpoint.secret, header, during.body, nowSeconds()));
    server.clock.advance(3601_000);
    const later = await signedTest();
    assert.ok(later);
    const laterHeader = String(later.headers['nativa-signature']);
    assert.ok(verifySignature(secret, laterHeader, later.body, nowSeconds()));
    assert.ok(!verifySignature(endpoint.secret, laterHeader, later.body, nowSeconds()));
    await advertiser.client.delete(`/api/advertiser/webhooks/${endpoint.id}`);
  });
});

describe('webhooks without WEBHOOK_ALLOW_PRIVATE', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('refuses loopback, private, link-local and IPv4-mapped addresses', async () => {
    const advertiser = await server.createAccount('advertiser');
    for (const url of [
      'https://127.0.0.1:8443/hook',
      'https://localhost/hook',
      'https://10.0.0.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/hook',
      'https://[::ffff:127.0.0.1]/hook',
      'https://100.64.1.1/hook',
    ]) {
      const response = await advertiser.client.post('/api/advertiser/webhooks', { url, events: ['client.created'] });
      assert.equal(response.status, 422, `${url}: ${response.text}`);
      assert.equal(response.json().errors[0].field, 'url');
    }
    const listed = await advertiser.client.get('/api/advertiser/webhooks');
    assert.deepEqual(listed.json(), []);
  });
});
