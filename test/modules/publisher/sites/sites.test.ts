import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ERRORS } from '../../../../src/errors.ts';
import { embedCode } from '../../../../src/modules/publisher/blocks/embed-code.ts';
import { normalizeSiteUrl } from '../../../../src/modules/publisher/sites/site-url.ts';
import { insertCampaign, insertOffer, recordTraffic } from '../../../helpers/fixtures.ts';
import { startTestServer, TEST_EPOCH_MS, type TestServer } from '../../../helpers/server.ts';
import { NO_PUBLISHER_TRAFFIC } from '../../../helpers/statistics.ts';

const XML = 'application/xml';
const DAY = 86_400_000;

describe('publisher sites and blocks', () => {
  let server: TestServer;
  let publisher: Awaited<ReturnType<TestServer['createAccount']>>;
  let other: Awaited<ReturnType<TestServer['createAccount']>>;
  let advertiser: Awaited<ReturnType<TestServer['createAccount']>>;

  before(async () => {
    server = await startTestServer();
    publisher = await server.createAccount('publisher');
    other = await server.createAccount('publisher');
    advertiser = await server.createAccount('advertiser');
  });
  after(() => server.close());

  const createSite = async (client: typeof publisher.client, body: Record<string, unknown>) => {
    const response = await client.post('/api/webmaster/sites', body);
    assert.equal(response.status, 201, response.text);
    return response.json();
  };

  describe('GET /webmaster/categories', () => {
    it('lists the seeded site categories in JSON', async () => {
      const response = await publisher.client.get('/api/webmaster/categories?per-page=100');
      assert.equal(response.status, 200);
      assert.equal(response.header('x-pagination-total-count'), '32');
      const categories = response.json();
      assert.equal(categories.length, 32);
      assert.deepEqual(categories[0], { id: 1, parent_id: null, title: 'News & Media' });
      assert.deepEqual(
        categories.find((category: { id: number }) => category.id === 101),
        { id: 101, parent_id: 1, title: 'General news' },
      );
    });

    it('lists them in XML', async () => {
      const response = await publisher.client.get('/api/webmaster/categories?per-page=100', { accept: XML });
      assert.equal(response.status, 200);
      const items = response.xml().item;
      assert.equal(items.length, 32);
      assert.equal(items[1].id, '2');
      assert.equal(items[1].title, 'Entertainment');
      assert.equal(items[12].parent_id, '1');
    });

    it('refuses an advertiser token with 403 and no token with 401', async () => {
      assert.equal((await advertiser.client.get('/api/webmaster/categories')).status, 403);
      assert.equal((await server.anonymous.get('/api/webmaster/categories')).status, 401);
    });
  });

  describe('POST /webmaster/sites', () => {
    it('creates a site in moderation with a normalized url', async () => {
      const response = await publisher.client.post('/api/webmaster/sites', {
        url: 'HTTPS://News.Example.com/',
        category_id: 101,
        monthly_uniq_users: 5000,
      });
      assert.equal(response.status, 201, response.text);
      const site = response.json();
      assert.equal(response.header('location'), `${server.url}/api/webmaster/sites/${site.id}`);
      assert.deepEqual(site, {
        id: site.id,
        status: 'moderation',
        url: 'https://news.example.com',
        category_id: '101',
        monthly_uniq_users: '5000',
        blocks_count: 0,
        ...NO_PUBLISHER_TRAFFIC,
      });
    });

    it('accepts an XML body and answers in XML', async () => {
      const response = await publisher.client.post('/api/webmaster/sites', undefined, {
        raw: '<request><url>http://blog.example.org/tech/</url><category_id>3</category_id></request>',
        contentType: XML,
        accept: XML,
      });
      assert.equal(response.status, 201, response.text);
      const site = response.xml();
      assert.equal(site.url, 'http://blog.example.org/tech');
      assert.equal(site.status, 'moderation');
      assert.equal(site.category_id, '3');
      assert.equal(site.monthly_uniq_users, '0');
      assert.equal(site.money, '0');
    });

    it('rejects a duplicate address of the same publisher, but not of another one', async () => {
      await createSite(publisher.client, { url: 'https://dup.example.com/path', category_id: 1 });
      const again = await publisher.client.post('/api/webmaster/sites', { url: 'https://DUP.example.com/path/', category_id: 2 });
      assert.equal(again.status, 422);
      assert.deepEqual(
        again.json().errors.map((error: { field: string }) => error.field),
        ['url'],
      );
      await createSite(other.client, { url: 'https://dup.example.com/path', category_id: 1 });
    });

    it('shows the operator, in moderation, the sites of other accounts with the same domain', async () => {
      const first = await createSite(publisher.client, { url: 'https://same-host.example.com/news', category_id: 1 });
      const second = await createSite(other.client, { url: 'http://WWW.same-host.example.com:8080/', category_id: 1 });
      const unrelated = await createSite(other.client, { url: 'https://another-host.example.com', category_id: 1 });
      const own = await createSite(publisher.client, { url: 'https://same-host.example.com/blog', category_id: 1 });
      const queue = await server.operator.get('/api/admin/sites?status=0&per-page=100');
      assert.equal(queue.status, 200, queue.text);
      const sameHost = new Map(
        queue.json<{ id: number; sameHostSites: number[] }[]>().map((site) => [site.id, site.sameHostSites]),
      );
      assert.deepEqual(sameHost.get(first.id), [second.id]);
      assert.deepEqual(sameHost.get(own.id), [second.id], 'the publisher’s own other site is not another account');
      assert.deepEqual(sameHost.get(second.id), [first.id, own.id]);
      assert.deepEqual(sameHost.get(unrelated.id), []);
      const decided = await server.operator.put(`/api/admin/sites/${second.id}`, { status: 2 });
      assert.deepEqual(decided.json<{ sameHostSites: number[] }>().sameHostSites, [first.id, own.id]);
    });

    it('registers an address once when the same publisher sends it concurrently', async () => {
      const racer = await server.createAccount('publisher');
      const answers = await Promise.all(
        Array.from({ length: 6 }, () =>
          racer.client.post('/api/webmaster/sites', { url: 'https://race.example.com', category_id: 1 }),
        ),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 422, 422, 422, 422, 422]);
      for (const refused of answers.filter((answer) => answer.status === 422)) {
        assert.deepEqual(
          refused.json().errors.map((error: { field: string }) => error.field),
          ['url'],
          refused.text,
        );
      }
      const listed = (await racer.client.get('/api/webmaster/sites')).json();
      assert.deepEqual(
        listed.map((site: { url: string }) => site.url),
        ['https://race.example.com'],
      );
    });

    it('names the failing field in 422s', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ url: 'ftp://files.example.com', category_id: 1 }, 'url'],
        [{ url: 'not a url', category_id: 1 }, 'url'],
        [{ url: 'https://a.example.com', category_id: 9999 }, 'category_id'],
        [{ url: 'https://a.example.com', category_id: 'x' }, 'category_id'],
        [{ category_id: 1 }, 'url'],
        [{ url: 'https://a.example.com', category_id: 1, monthly_uniq_users: -1 }, 'monthly_uniq_users'],
        [{ url: 'https://a.example.com', category_id: 1, owner: 5 }, 'owner'],
      ];
      for (const [body, field] of cases) {
        const response = await publisher.client.post('/api/webmaster/sites', body);
        assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
        assert.ok(
          response.json().errors.some((error: { field: string }) => error.field === field),
          `${JSON.stringify(body)} should name ${field}: ${response.text}`,
        );
      }
    });

    it('is refused to an advertiser', async () => {
      const response = await advertiser.client.post('/api/webmaster/sites', { url: 'https://adv.example.com', category_id: 1 });
      assert.equal(response.status, 403);
    });
  });

  describe('blocks', () => {
    it('creates a block whose bn is the embed code, and reads it in JSON and XML', async () => {
      const site = await createSite(publisher.client, { url: 'https://blocks.example.com', category_id: 3 });
      const response = await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, {
        title: 'Under the article',
        count: 6,
      });
      assert.equal(response.status, 201, response.text);
      const block = response.json();
      assert.equal(response.header('location'), `${server.url}/api/webmaster/blocks/${block.id}`);
      const bn = `<div data-nativa-block="${block.id}"></div><script async src="${server.url}/api/serve/loader.js"></script>`;
      assert.deepEqual(block, { id: block.id, bn, title: 'Under the article', siteid: String(site.id), count: 6 });
      assert.equal(embedCode(server.url, block.id), bn);

      const read = await publisher.client.get(`/api/webmaster/blocks/${block.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.json(), block);

      const xml = await publisher.client.get(`/api/webmaster/blocks/${block.id}`, { accept: XML });
      assert.equal(xml.status, 200);
      assert.deepEqual(xml.xml(), { id: String(block.id), bn, title: 'Under the article', siteid: String(site.id), count: '6' });
    });

    it('defaults to 4 teasers and accepts size as an alias', async () => {
      const site = await createSite(publisher.client, { url: 'https://sizes.example.com', category_id: 3 });
      const plain = await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Default' });
      assert.equal(plain.json().count, 4);
      const sized = await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Sized', size: 20 });
      assert.equal(sized.json().count, 20);
    });

    it('names the failing field in 422s', async () => {
      const site = await createSite(publisher.client, { url: 'https://bad-blocks.example.com', category_id: 3 });
      const cases: [Record<string, unknown>, string][] = [
        [{ title: 'x', count: 21 }, 'count'],
        [{ title: 'x', count: 0 }, 'count'],
        [{ title: 'x', size: 30 }, 'size'],
        [{ title: 'x', count: 3, size: 4 }, 'size'],
        [{ count: 3 }, 'title'],
        [{ title: '' }, 'title'],
        [{ title: 'x', code: '<b>' }, 'code'],
      ];
      for (const [body, field] of cases) {
        const response = await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, body);
        assert.equal(response.status, 422, `${JSON.stringify(body)}: ${response.text}`);
        assert.ok(
          response.json().errors.some((error: { field: string }) => error.field === field),
          response.text,
        );
      }
    });

    it('adds no block to a banned site (409) and adds them again once the site is reinstated', async () => {
      const site = await createSite(publisher.client, { url: 'https://banned-blocks.example.com', category_id: 3 });
      assert.equal((await server.operator.put(`/api/admin/sites/${site.id}`, { status: 2 })).status, 200);
      const refused = await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Nope' });
      assert.equal(refused.status, 409, refused.text);
      assert.deepEqual(refused.json(), {
        name: 'Conflict',
        message: `Site ${site.id} is banned: no blocks can be added to it.`,
        code: ERRORS.site_banned.code,
        status: 409,
      });
      assert.equal((await publisher.client.get(`/api/webmaster/sites/${site.id}`)).json().blocks_count, 0);
      assert.equal((await server.operator.put(`/api/admin/sites/${site.id}`, { status: 0 })).status, 200);
      assert.equal((await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Yes' })).status, 201);
    });

    it("hides another publisher's site and block (404) and refuses advertisers (403)", async () => {
      const site = await createSite(publisher.client, { url: 'https://private.example.com', category_id: 3 });
      const block = (await publisher.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Mine' })).json();
      assert.equal((await other.client.post(`/api/webmaster/sites/${site.id}/blocks`, { title: 'Theirs' })).status, 404);
      assert.equal((await other.client.get(`/api/webmaster/blocks/${block.id}`)).status, 404);
      assert.equal((await other.client.get(`/api/webmaster/sites/${site.id}`)).status, 404);
      assert.equal((await publisher.client.get('/api/webmaster/blocks/999999')).status, 404);
      assert.equal((await advertiser.client.get(`/api/webmaster/blocks/${block.id}`)).status, 403);
      assert.equal((await advertiser.client.get(`/api/webmaster/sites/${site.id}`)).status, 403);
    });
  });

  describe('reading sites', () => {
    let owner: Awaited<ReturnType<TestServer['createAccount']>>;
    let siteA: { id: number };
    let siteB: { id: number };
    let blockA1: { id: number };
    let blockA2: { id: number };

    before(async () => {
      owner = await server.createAccount('publisher');
      siteA = await createSite(owner.client, { url: 'https://a.example.net', category_id: 4, monthly_uniq_users: 120000 });
      siteB = await createSite(owner.client, { url: 'https://b.example.net', category_id: 5 });
      blockA1 = (await owner.client.post(`/api/webmaster/sites/${siteA.id}/blocks`, { title: 'Top', count: 3 })).json();
      blockA2 = (await owner.client.post(`/api/webmaster/sites/${siteA.id}/blocks`, { title: 'Bottom', count: 8 })).json();
      const db = server.server.context.db;
      const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
      const offer = await insertOffer(db, { campaignId: campaign.id });
      const common = { campaignId: campaign.id, offerId: offer.id, siteId: siteA.id, device: 1 as const };
      await recordTraffic(db, [
        // 2026-03-09
        {
          ...common,
          at: TEST_EPOCH_MS - DAY,
          blockId: blockA1.id,
          views: 600,
          clicks: 12,
          spendMicros: 1_200_000,
          publisherIncomeMicros: 840_000,
        },
        {
          ...common,
          at: TEST_EPOCH_MS - DAY,
          blockId: blockA2.id,
          views: 400,
          clicks: 8,
          spendMicros: 800_000,
          publisherIncomeMicros: 560_000,
        },
        // 2026-03-10
        {
          ...common,
          at: TEST_EPOCH_MS,
          blockId: blockA1.id,
          views: 500,
          clicks: 5,
          spendMicros: 500_000,
          publisherIncomeMicros: 350_000,
        },
      ]);
    });

    it('shows lifetime statistics without dates', async () => {
      const response = await owner.client.get(`/api/webmaster/sites/${siteA.id}`);
      assert.equal(response.status, 200);
      assert.deepEqual(response.json(), {
        id: siteA.id,
        status: 'moderation',
        url: 'https://a.example.net',
        category_id: '4',
        monthly_uniq_users: '120000',
        blocks_count: 2,
        views: 1500,
        clicks: 25,
        ctr: 1.6667,
        cpm: 1.1667,
        money: 175,
        income: 1.75,
        served: 0,
        refundedClicks: 0,
        refundedIncome: 0,
        invalidClicks: 0,
        grossClicks: 25,
        netClicks: 25,
        netIncome: 1.75,
      });
    });

    it('limits statistics to the period', async () => {
      const response = await owner.client.get(`/api/webmaster/sites/${siteA.id}?dateFrom=2026-03-10&dateTo=2026-03-10`);
      const site = response.json();
      assert.deepEqual(
        { views: site.views, clicks: site.clicks, ctr: site.ctr, cpm: site.cpm, money: site.money, income: site.income },
        { views: 500, clicks: 5, ctr: 1, cpm: 0.7, money: 35, income: 0.35 },
      );
      const before = (await owner.client.get(`/api/webmaster/sites/${siteA.id}?dateTo=2026-03-09`)).json();
      assert.equal(before.views, 1000);
      assert.equal(before.money, 140);
      const none = (await owner.client.get(`/api/webmaster/sites/${siteA.id}?dateFrom=2026-03-11`)).json();
      assert.equal(none.views, 0);
      assert.equal(none.cpm, 0);
    });

    it('rejects bad dates with 422 naming the parameter', async () => {
      const bad = await owner.client.get(`/api/webmaster/sites/${siteA.id}?dateFrom=2026-02-30`);
      assert.equal(bad.status, 422);
      assert.equal(bad.json().errors[0].field, 'dateFrom');
      const reversed = await owner.client.get('/api/webmaster/sites?dateFrom=2026-03-10&dateTo=2026-03-01');
      assert.equal(reversed.status, 422);
      assert.equal(reversed.json().errors[0].field, 'dateTo');
    });

    it('embeds blocks with expand=blocks, in JSON and XML', async () => {
      const response = await owner.client.get(`/api/webmaster/sites/${siteA.id}?expand=blocks`);
      const site = response.json();
      assert.deepEqual(
        site.blocks.map((block: { id: number; title: string; count: number; siteid: string }) => [
          block.id,
          block.title,
          block.count,
          block.siteid,
        ]),
        [
          [blockA1.id, 'Top', 3, String(siteA.id)],
          [blockA2.id, 'Bottom', 8, String(siteA.id)],
        ],
      );
      assert.equal(site.blocks[0].bn, embedCode(server.url, blockA1.id));
      const xml = (await owner.client.get(`/api/webmaster/sites/${siteA.id}?expand=blocks`, { accept: XML })).xml();
      assert.equal(xml.views, '1500');
      assert.equal(xml.income, '1.75');
      assert.deepEqual(
        xml.blocks.item.map((block: { id: string }) => block.id),
        [String(blockA1.id), String(blockA2.id)],
      );
      const plain = (await owner.client.get(`/api/webmaster/sites/${siteA.id}`)).json();
      assert.equal(plain.blocks, undefined);
    });

    it('lists only own sites, paginated, with the status filter', async () => {
      const all = await owner.client.get('/api/webmaster/sites');
      assert.equal(all.status, 200);
      assert.deepEqual(
        all.json().map((site: { id: number }) => site.id),
        [siteA.id, siteB.id],
      );
      assert.equal(all.header('x-pagination-total-count'), '2');
      assert.equal(all.json()[0].views, 1500);
      assert.equal(all.json()[1].views, 0);

      const approved = await server.operator.put(`/api/admin/sites/${siteB.id}`, { status: 1 });
      assert.equal(approved.status, 200, approved.text);
      assert.equal(approved.json().status, 'active');
      assert.equal(approved.json().userId, owner.id);

      const active = (await owner.client.get('/api/webmaster/sites?status=1')).json();
      assert.deepEqual(
        active.map((site: { id: number; status: string }) => [site.id, site.status]),
        [[siteB.id, 'active']],
      );
      const moderation = (await owner.client.get('/api/webmaster/sites?status=0')).json();
      assert.deepEqual(
        moderation.map((site: { id: number }) => site.id),
        [siteA.id],
      );
      assert.deepEqual((await owner.client.get('/api/webmaster/sites?status=2')).json(), []);
      const invalid = await owner.client.get('/api/webmaster/sites?status=4');
      assert.equal(invalid.status, 422);
      assert.equal(invalid.json().errors[0].field, 'status');

      const page = await owner.client.get('/api/webmaster/sites?per-page=1&page=2');
      assert.deepEqual(
        page.json().map((site: { id: number }) => site.id),
        [siteB.id],
      );
      assert.equal(page.header('x-pagination-page-count'), '2');
      assert.equal(page.header('x-pagination-total-count'), '2');
      // A page past the end has no row to carry the count: it is counted on its own.
      const beyond = await owner.client.get('/api/webmaster/sites?per-page=1&page=5');
      assert.deepEqual(beyond.json(), []);
      assert.equal(beyond.header('x-pagination-total-count'), '2');

      const xml = (await owner.client.get('/api/webmaster/sites?dateFrom=2026-03-09&dateTo=2026-03-09', { accept: XML })).xml();
      assert.equal(xml.item.length, 2);
      assert.equal(xml.item[0].views, '1000');
      assert.equal(xml.item[0].money, '140');
      assert.equal(xml.item[1].status, 'active');
    });
  });

  describe('operator moderation', () => {
    it('shows the moderation queue and moves a site through every status', async () => {
      const owner = await server.createAccount('publisher');
      const site = await createSite(owner.client, { url: 'https://queue.example.com', category_id: 1 });
      const queue = await server.operator.get(`/api/admin/sites?status=0&userId=${owner.id}`);
      assert.equal(queue.status, 200);
      assert.deepEqual(
        queue.json().map((row: { id: number; userId: number; status: string }) => [row.id, row.userId, row.status]),
        [[site.id, owner.id, 'moderation']],
      );
      const everyQueued = (await server.operator.get('/api/admin/sites?status=0&per-page=100')).json();
      assert.ok(everyQueued.every((row: { status: string }) => row.status === 'moderation'));
      assert.ok(everyQueued.some((row: { id: number }) => row.id === site.id));

      for (const [code, name] of [
        [1, 'active'],
        [2, 'banned'],
        [3, 'unconfirmed'],
        [0, 'moderation'],
      ] as const) {
        const response = await server.operator.put(`/api/admin/sites/${site.id}`, { status: code });
        assert.equal(response.status, 200);
        assert.equal(response.json().status, name);
        assert.equal((await owner.client.get(`/api/webmaster/sites/${site.id}`)).json().status, name);
      }
      const xml = await server.operator.put(`/api/admin/sites/${site.id}`, { status: 2 }, { accept: XML });
      assert.equal(xml.xml().status, 'banned');
    });

    it('validates the status, 404s an unknown site and refuses non-operators', async () => {
      const owner = await server.createAccount('publisher');
      const site = await createSite(owner.client, { url: 'https://mod.example.com', category_id: 1 });
      const bad = await server.operator.put(`/api/admin/sites/${site.id}`, { status: 4 });
      assert.equal(bad.status, 422);
      assert.equal(bad.json().errors[0].field, 'status');
      const missing = await server.operator.put(`/api/admin/sites/${site.id}`, {});
      assert.equal(missing.status, 422);
      assert.equal(missing.json().errors[0].field, 'status');
      assert.equal((await server.operator.put('/api/admin/sites/999999', { status: 1 })).status, 404);
      assert.equal((await owner.client.put(`/api/admin/sites/${site.id}`, { status: 1 })).status, 403);
      assert.equal((await owner.client.get('/api/admin/sites')).status, 403);
      assert.equal((await owner.client.get(`/api/webmaster/sites/${site.id}`)).json().status, 'moderation');
    });
  });
});

describe('normalizeSiteUrl', () => {
  it('canonicalizes addresses and refuses what is not http(s)', () => {
    const cases: [string, string | undefined][] = [
      ['https://Example.COM/', 'https://example.com'],
      ['http://example.com:80/a/b/', 'http://example.com/a/b'],
      ['https://example.com:8443/x?y=1#frag', 'https://example.com:8443/x?y=1'],
      ['  https://example.com  ', 'https://example.com'],
      ['ftp://example.com', undefined],
      ['javascript:alert(1)', undefined],
      ['https://user:pass@example.com', undefined],
      ['example.com', undefined],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeSiteUrl(input), expected, input);
  });
});
