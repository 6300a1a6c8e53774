// Invalid traffic disclosed over HTTPS: robots' clicks refused on arrival and billed clicks refunded
// afterwards, shown gross and net in both roles' statistics, by reason on their own endpoints (JSON
// and XML), to operators by site, block, reason, network and day; the review rule flags a site
// (webhook to its publisher without the rule's figures), and the operators' actions on the review
// are audited; metrics per reason.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { dayOf } from '../../../src/modules/statistics/vocabulary.ts';
import { startTestServer, type TestServer, testTls } from '../../helpers/server.ts';
import { BOT_UA, balanceOf, createWorld, DESKTOP_UA, engineOf, pathOf, type World } from '../../helpers/serving.ts';
import { waitFor } from '../../helpers/wait.ts';
import { WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const amountOf = (micros: number) => Math.round(micros / 100) / 10_000;

describe('invalid traffic disclosed: gross and net, by reason, the review queue', () => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let world: World;
  let today: string;
  /** Clicks of the world: the robots' (refused) and the billed ones, one of which gets refunded. */
  let robots: number;
  let billed: { click_id: string; charge_micros: number; publisher_micros: number }[];

  /** Serves the block `loads` times and follows every teaser's link with this user agent. */
  async function clickThrough(loads: number, userAgent: string): Promise<number> {
    let clicks = 0;
    for (let load = 0; load < loads; load += 1) {
      const response = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
        headers: { 'User-Agent': DESKTOP_UA },
      });
      for (const teaser of response.json<{ teasers: { url: string }[] }>().teasers) {
        const click = await server.anonymous.get(pathOf(teaser.url), { headers: { 'User-Agent': userAgent } });
        assert.equal(click.status, 302);
        clicks += 1;
      }
    }
    await engineOf(server).settled();
    return clicks;
  }

  before(async () => {
    const tls = await testTls();
    receiver = await new WebhookReceiver(tls).start();
    server = await startTestServer({
      config: { webhookAllowPrivate: true, webhookCa: tls.cert },
      // A small rule so that a handful of clicks reach it: 4 clicks, a fifth of them invalid.
      env: { IVT_REVIEW_MIN_CLICKS: '4', IVT_REVIEW_SHARE_PERCENT: '20', IVT_REVIEW_INTERVAL_SECONDS: '0' },
    });
    today = dayOf(server.clock.now(), server.server.context.config.timeZone);
    world = await createWorld(server);
    const hook = await world.publisher.post('/api/webmaster/webhooks', {
      url: `${receiver.url}/publisher`,
      events: ['traffic.site_flagged'],
    });
    assert.equal(hook.status, 201, hook.text);
    robots = await clickThrough(2, BOT_UA);
    await clickThrough(2, DESKTOP_UA);
    billed = await server.server.context.db
      .selectFrom('clicks')
      .select(['click_id', 'charge_micros', 'publisher_micros'])
      .where('site_id', '=', world.siteId)
      .where('status', '=', 'billed')
      .orderBy('click_id')
      .execute();
    assert.ok(robots >= 2 && billed.length >= 2, `${robots} robots, ${billed.length} billed`);
    const [first] = billed;
    assert.ok(first);
    const refund = await server.operator.post('/api/admin/refunds', { clickIds: [first.click_id], reason: 'publisher_fraud' });
    assert.equal(refund.status, 201, refund.text);
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  const refunded = () => billed[0] ?? { click_id: '', charge_micros: 0, publisher_micros: 0 };
  const charged = () => billed.reduce((sum, click) => sum + click.charge_micros, 0);
  const earned = () => billed.reduce((sum, click) => sum + click.publisher_micros, 0);

  it('counts refused clicks beside billed and refunded ones in the advertiser’s statistics: gross and net', async () => {
    const response = await world.advertiser.get(`/api/advertiser/statistics?filter[id]=${world.campaignIds.join(',')}`);
    assert.equal(response.status, 200, response.text);
    const [row] = response.json();
    assert.equal(row.clicks, billed.length);
    assert.equal(row.invalidClicks, robots);
    assert.equal(row.grossClicks, billed.length + robots);
    assert.equal(row.refundedClicks, 1);
    assert.equal(row.netClicks, billed.length - 1);
    assert.equal(row.money, amountOf(charged()));
    assert.equal(row.netSpend, amountOf(charged() - refunded().charge_micros));
  });

  it('counts them in the publisher’s statistics and the site list: what was not paid', async () => {
    const response = await world.publisher.get(`/api/webmaster/statistic?siteIds=${world.siteId}`);
    assert.equal(response.status, 200, response.text);
    const [row] = response.json();
    assert.equal(row.invalidClicks, robots);
    assert.equal(row.grossClicks, billed.length + robots);
    assert.equal(row.netClicks, billed.length - 1);
    assert.equal(row.netIncome, amountOf(earned() - refunded().publisher_micros));
    const sites = await world.publisher.get('/api/webmaster/sites');
    const site = sites.json().find((entry: { id: number }) => entry.id === world.siteId);
    assert.equal(site.invalidClicks, robots);
  });

  it('tells the advertiser what was filtered, by reason, in JSON and XML alike', async () => {
    const response = await world.advertiser.get(`/api/advertiser/invalid-traffic?dateFrom=${today}&dateTo=${today}`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json(), {
      dateFrom: today,
      dateTo: today,
      campaignId: null,
      refusedClicks: robots,
      refundedClicks: 1,
      refundedSpend: amountOf(refunded().charge_micros),
      reasons: [
        { outcome: 'refused', reason: 'bot', clicks: robots, amount: 0 },
        { outcome: 'refunded', reason: 'publisher_fraud', clicks: 1, amount: amountOf(refunded().charge_micros) },
      ],
    });
    const xml = await world.advertiser.get(`/api/advertiser/invalid-traffic?dateFrom=${today}&dateTo=${today}`, {
      accept: 'application/xml',
    });
    assert.equal(xml.status, 200, xml.text);
    const body = xml.xml();
    assert.equal(body.refusedClicks, String(robots));
    assert.equal(body.refundedClicks, '1');
    const other = await world.advertiser.get('/api/advertiser/invalid-traffic?dateFrom=2026-01-01&dateTo=2026-01-02');
    assert.equal(other.json().refusedClicks, 0, 'another period has none');
    const campaign = world.campaignIds[0];
    const one = await world.advertiser.get(`/api/advertiser/invalid-traffic?campaignId=${campaign}`);
    assert.equal(one.status, 200, one.text);
    const stranger = await server.createAccount('advertiser');
    const theirs = await stranger.client.get(`/api/advertiser/invalid-traffic?campaignId=${campaign}`);
    assert.equal(theirs.status, 404, 'another advertiser’s campaign is not found');
    assert.equal((await stranger.client.get('/api/advertiser/invalid-traffic')).json().refusedClicks, 0);
  });

  it('tells the publisher why clicks were not paid, never the rules’ thresholds', async () => {
    const response = await world.publisher.get(`/api/webmaster/invalid-traffic?siteId=${world.siteId}`);
    assert.equal(response.status, 200, response.text);
    const body = response.json();
    assert.equal(body.refusedClicks, robots);
    assert.equal(body.refundedClicks, 1);
    assert.equal(body.reversedIncome, amountOf(refunded().publisher_micros));
    assert.deepEqual(
      body.reasons.map((row: { outcome: string; reason: string; clicks: number }) => [row.outcome, row.reason, row.clicks]),
      [
        ['refused', 'bot', robots],
        ['refunded', 'publisher_fraud', 1],
      ],
    );
    assert.doesNotMatch(response.text, /threshold|share/i);
    const stranger = await server.createAccount('publisher');
    assert.equal((await stranger.client.get(`/api/webmaster/invalid-traffic?siteId=${world.siteId}`)).status, 404);
    assert.equal((await world.advertiser.get('/api/webmaster/invalid-traffic')).status, 403);
    assert.equal((await world.publisher.get('/api/webmaster/invalid-traffic?dateFrom=2026-13-01')).status, 422);
  });

  it('shows operators the invalid share by site, block, reason, network and day', async () => {
    const total = billed.length + robots;
    const bySite = await server.operator.get(`/api/admin/invalid-traffic?by=site&dateFrom=${today}&dateTo=${today}`);
    assert.equal(bySite.status, 200, bySite.text);
    const site = bySite.json().rows.find((row: { siteId: number }) => row.siteId === world.siteId);
    assert.equal(site.clicks, total);
    assert.equal(site.refusedClicks, robots);
    assert.equal(site.refundedClicks, 1);
    assert.equal(site.invalidShare, Math.round(((robots + 1) / total) * 10_000) / 100);
    const byBlock = await server.operator.get('/api/admin/invalid-traffic?by=block');
    assert.ok(byBlock.json().rows.some((row: { key: string }) => row.key === String(world.blockId)));
    const byReason = await server.operator.get('/api/admin/invalid-traffic?by=reason');
    assert.deepEqual(
      byReason.json().rows.map((row: { key: string; clicks: number }) => [row.key, row.clicks]),
      [
        ['bot', robots],
        ['publisher_fraud', 1],
      ],
    );
    const byNetwork = await server.operator.get('/api/admin/invalid-traffic?by=network');
    assert.deepEqual(
      byNetwork.json().rows.map((row: { key: string; clicks: number }) => [row.key, row.clicks]),
      [['127.0.0.0/24', total]],
    );
    const byDay = await server.operator.get('/api/admin/invalid-traffic?by=day');
    assert.equal(byDay.json().dateTo, today);
    assert.deepEqual(
      byDay.json().rows.map((row: { key: string; clicks: number }) => [row.key, row.clicks]),
      [[today, total]],
    );
    assert.equal((await world.publisher.get('/api/admin/invalid-traffic')).status, 403);
    assert.equal((await server.operator.get('/api/admin/invalid-traffic?by=country')).status, 422);
  });

  it('flags a site over the rule into the review queue, once, and tells its publisher without the rule', async () => {
    const run = await server.operator.post('/api/admin/invalid-traffic/reviews/evaluate', {});
    assert.equal(run.status, 200, run.text);
    const [flagged] = run.json().flagged;
    assert.equal(flagged.siteId, world.siteId);
    const again = await server.operator.post('/api/admin/invalid-traffic/reviews/evaluate', {});
    assert.deepEqual(again.json().flagged, [], 'an open review is not opened twice');

    const queue = await server.operator.get('/api/admin/invalid-traffic/reviews?status=open');
    assert.equal(queue.status, 200, queue.text);
    const [review] = queue.json();
    assert.equal(review.id, flagged.reviewId);
    assert.equal(review.clicks, billed.length + robots);
    assert.equal(review.invalidClicks, robots + 1);
    assert.deepEqual(review.evidence, [
      { outcome: 'refused', reason: 'bot', clicks: robots },
      { outcome: 'refunded', reason: 'publisher_fraud', clicks: 1 },
    ]);
    assert.equal(review.status, 'open');

    await waitFor('the publisher hears of the flag', async () => {
      server.server.context.webhooks.wake();
      return receiver.ofType('traffic.site_flagged').length > 0;
    });
    const [webhook] = receiver.ofType('traffic.site_flagged');
    assert.ok(webhook);
    assert.equal(webhook.event.userId, world.publisherId);
    assert.equal(webhook.event.data.siteId, world.siteId);
    assert.equal(webhook.event.data.invalidClicks, robots + 1);
    assert.doesNotMatch(webhook.body, /threshold|percent|minClicks/i);
  });

  it('acts on a review: warn in the publisher’s language, refund the period, dismiss; each audited', async () => {
    const [review] = (await server.operator.get('/api/admin/invalid-traffic/reviews?status=open')).json();
    assert.equal((await world.publisher.put('/api/me/language', { language: 'ru' })).status, 204);

    const warned = await server.operator.post(`/api/admin/invalid-traffic/reviews/${review.id}/actions`, { action: 'warn' });
    assert.equal(warned.status, 200, warned.text);
    assert.deepEqual(warned.json().review.actions, ['warn']);
    const [notice] = (await world.publisher.get('/api/notifications')).json();
    assert.equal(notice.kind, 'traffic.warning');
    assert.match(notice.text, /недействительн/);
    assert.match(notice.text, /роботы и поисковые боты/, 'the reasons in words, not codes');
    assert.doesNotMatch(notice.text, /publisher_fraud|\bbot\b/);
    assert.doesNotMatch(notice.text, /20 ?%|IVT_/);

    const before = await balanceOf(server.server.context.db, world.advertiserId);
    const refund = await server.operator.post(`/api/admin/invalid-traffic/reviews/${review.id}/actions`, {
      action: 'refund',
      reason: 'publisher_fraud',
    });
    assert.equal(refund.status, 200, refund.text);
    const refundId = refund.json().refundId;
    assert.ok(refundId > 0);
    const rest = charged() - refunded().charge_micros;
    assert.equal(
      await balanceOf(server.server.context.db, world.advertiserId),
      before + rest,
      'the rest of the period is refunded',
    );

    const dismissed = await server.operator.post(`/api/admin/invalid-traffic/reviews/${review.id}/actions`, {
      action: 'dismiss',
      comment: 'handled',
    });
    assert.equal(dismissed.status, 200, dismissed.text);
    assert.equal(dismissed.json().review.status, 'dismissed');
    assert.deepEqual(dismissed.json().review.actions, ['warn', 'refund', 'dismiss']);
    const closed = await server.operator.post(`/api/admin/invalid-traffic/reviews/${review.id}/actions`, { action: 'ban' });
    assert.equal(closed.status, 409, 'a closed review takes no more actions');
    assert.equal(
      (await server.operator.post('/api/admin/invalid-traffic/reviews/999999/actions', { action: 'warn' })).status,
      404,
    );
    assert.equal(
      (await world.publisher.post(`/api/admin/invalid-traffic/reviews/${review.id}/actions`, { action: 'dismiss' })).status,
      403,
    );

    const audit = await server.operator.get('/api/admin/audit?objectType=site_review');
    assert.equal(audit.status, 200, audit.text);
    const actions = audit
      .json()
      .filter((entry: { objectId: string }) => String(entry.objectId) === String(review.id))
      .map((entry: { action: string }) => entry.action)
      .sort();
    assert.deepEqual(actions, ['site_review.dismiss', 'site_review.refund', 'site_review.warn']);
    const evaluated = await server.operator.post('/api/admin/invalid-traffic/reviews/evaluate', {});
    assert.deepEqual(evaluated.json().flagged, [], 'a review closed within the window is not reopened');
  });

  it('reports invalid clicks and open reviews per reason in the metrics', async () => {
    const metrics = await server.operator.get('/api/metrics');
    assert.equal(metrics.status, 200, metrics.text);
    assert.match(metrics.text, new RegExp(`nativa_invalid_clicks\\{outcome="refused",reason="bot"\\} ${robots}`));
    assert.match(metrics.text, /nativa_invalid_clicks\{outcome="refunded",reason="publisher_fraud"\} \d+/);
    assert.match(metrics.text, /nativa_ivt_sites_flagged_total\{reason="bot"\} 1/);
  });
});
