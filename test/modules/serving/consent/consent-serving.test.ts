import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gppString, OTHER_VENDOR_ID, TEST_VENDOR_ID, tcString } from '../../../helpers/consent-strings.ts';
import { startTestServer, type TestServer } from '../../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf } from '../../../helpers/serving.ts';

// Consent over HTTPS on the real server: what the teasers answer and the audience pixel do with
// real TC and GPP strings, GPC, malformed strings, and a site that never personalises.
describe('serving: consent signals', () => {
  let server: TestServer;
  const consented = tcString([1, 3, 4]);
  const refused = tcString([1]);
  before(async () => {
    server = await startTestServer({ config: { tcfVendorId: TEST_VENDOR_ID } });
  });
  after(() => server.close());

  async function teasers(blockId: number, query: string, headers: Record<string, string> = {}) {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers?${query}`, {
      headers: { 'User-Agent': DESKTOP_UA, ...headers },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ personalised: boolean; teasers: { id: number }[] }>();
  }

  async function retargetingWorld() {
    const db = server.server.context.db;
    const world = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    await db
      .updateTable('campaigns')
      .set({ is_retarget: true })
      .where('id', '=', world.campaignIds[0] ?? 0)
      .execute();
    await engineOf(server).refresh();
    return world;
  }

  async function members(advertiserId: number) {
    const db = server.server.context.db;
    return (await db.selectFrom('audience_members').select('visitor_id').where('advertiser_id', '=', advertiserId).execute())
      .length;
  }

  it('uses the retargeting audience only with consent; refusal, GPC, US opt-out and garbage serve unpersonalised', async () => {
    const world = await retargetingWorld();
    const consent = `gdpr=1&gdpr_consent=${consented}`;
    const pixel = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${world.advertiserId}&${consent}`);
    assert.equal(pixel.status, 200);
    const cookie = (pixel.header('set-cookie') ?? '').split(';')[0] ?? '';
    assert.match(cookie, /^nv_vid=/);
    assert.equal(await members(world.advertiserId), 1);

    const given = await teasers(world.blockId, consent, { Cookie: cookie });
    assert.equal(given.personalised, true);
    assert.equal(given.teasers.length, 1, 'the audience member sees the retargeting campaign');
    const noSignals = await teasers(world.blockId, '', { Cookie: cookie });
    assert.deepEqual([noSignals.personalised, noSignals.teasers.length], [true, 1], 'no CMP, no GPC: personalised');

    const unpersonalised: [string, string, Record<string, string>][] = [
      ['refused purposes', `gdpr=1&gdpr_consent=${refused}`, {}],
      ['another vendor', `gdpr=1&gdpr_consent=${tcString([1, 3, 4], [OTHER_VENDOR_ID])}`, {}],
      ['a CMP that never answered', 'gdpr=1', {}],
      ['Sec-GPC', consent, { 'Sec-GPC': '1' }],
      ['gpc=1', `${consent}&gpc=1`, {}],
      ['a US opt-out', `gpp=${gppString({ usnat: { SaleOptOut: 1 } })}&gpp_sid=7`, {}],
      ['a malformed TC string', 'gdpr=1&gdpr_consent=CQnot-a-tc-string', {}],
      ['a malformed GPP string', 'gpp=DBABLA~zz.zz&gpp_sid=7', {}],
      ['a truncated TC string', `gdpr=1&gdpr_consent=${consented.slice(0, 12)}`, {}],
    ];
    for (const [name, query, headers] of unpersonalised) {
      const answer = await teasers(world.blockId, query, { Cookie: cookie, ...headers });
      assert.equal(answer.personalised, false, name);
      assert.equal(answer.teasers.length, 0, `${name}: the audience is not used`);
    }
  });

  it('a consent parameter that cannot be read serves teasers unpersonalised (200), counted by signal', async () => {
    const world = await retargetingWorld();
    const contextual = await createWorld(server, { ads: [{ bidMicros: 100_000 }] });
    await server.server.context.db
      .updateTable('campaigns')
      .set({ active: true })
      .where('id', '=', world.campaignIds[0] ?? 0)
      .execute();
    await engineOf(server).refresh();
    const consent = `gdpr=1&gdpr_consent=${consented}`;
    const pixel = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${world.advertiserId}&${consent}`);
    const cookie = (pixel.header('set-cookie') ?? '').split(';')[0] ?? '';
    assert.equal((await teasers(world.blockId, consent, { Cookie: cookie })).teasers.length, 2, 'consent: both campaigns');
    const valid = `gdpr=1&gdpr_consent=${consented}`;
    const cases: [string, string, string][] = [
      ['gdpr_consent', 'garbage', 'gdpr=1&gdpr_consent=garbage'],
      ['gdpr_consent', 'a script tag', 'gdpr=1&gdpr_consent=CQ%3Cscript%3E'],
      ['gdpr_consent', 'digits', `gdpr_consent=${'9'.repeat(40)}`],
      ['gdpr_consent', 'base64 padding', `gdpr=1&gdpr_consent=${consented}%3D%3D`],
      ['gdpr_consent', 'a space', `gdpr=1&gdpr_consent=CQ%20AB`],
      ['gdpr_consent', 'TCF v1', 'gdpr=1&gdpr_consent=BOEFEAyOEFEAyAHABDENAI4AAAB9vABAASA'],
      ['gdpr_consent', 'too long', `gdpr=1&gdpr_consent=C${'A'.repeat(5000)}`],
      ['gdpr_consent', 'unicode', 'gdpr=1&gdpr_consent=C%C3%A9%F0%9F%98%80'],
      ['gdpr_consent', 'a NUL', 'gdpr=1&gdpr_consent=C%00'],
      ['gdpr_consent', 'bad percent-encoding', 'gdpr=1&gdpr_consent=C%E0%A4%A'],
      ['gpp', 'digits', `gpp=${'9'.repeat(40)}`],
      ['gpp', 'at signs', 'gpp=DBABLA~%40%40'],
      ['gpp', 'broken sections', 'gpp=DBABLA~zz.zz&gpp_sid=7'],
      ['gpp', 'only a header', 'gpp=D'],
      ['gpp', 'tildes', 'gpp=~~~'],
      ['gpp', 'too long', `gpp=D${'A'.repeat(9000)}`],
      ['gpp_sid', 'a semicolon', `${valid}&gpp_sid=7;8`],
      ['gpp_sid', 'words', `${valid}&gpp_sid=all`],
      ['gpp_sid', 'too many digits', `${valid}&gpp_sid=12345`],
      ['gdpr', 'two', `gdpr=2&gdpr_consent=${consented}`],
      ['gdpr', 'true', `gdpr=true&gdpr_consent=${consented}`],
      ['gdpr', 'minus one', `gdpr=-1&gdpr_consent=${consented}`],
      ['gdpr', 'a fraction', `gdpr=0.5&gdpr_consent=${consented}`],
      ['gpc', 'yes', `${valid}&gpc=yes`],
      ['gpc', 'two', `${valid}&gpc=2`],
      ['us_privacy', 'xyz', `${valid}&us_privacy=xyz`],
      ['us_privacy', 'version 2', `${valid}&us_privacy=2YNN`],
      ['us_privacy', 'too long', `${valid}&us_privacy=1YNNN`],
    ];
    const before = await unreadableCounts();
    const expected = { ...before };
    for (const [signal, name, query] of cases) {
      for (const block of [world.blockId, contextual.blockId]) {
        const answer = await server.anonymous.get(`/api/serve/blocks/${block}/teasers?${query}`, {
          headers: { 'User-Agent': DESKTOP_UA, Cookie: cookie },
        });
        assert.equal(answer.status, 200, `${signal} ${name}: ${answer.text.slice(0, 300)}`);
        const body = answer.json<{ personalised: boolean; teasers: { id: number }[] }>();
        assert.equal(body.personalised, false, `${signal} ${name}`);
        assert.deepEqual(
          body.teasers.map((teaser) => teaser.id),
          contextual.offerIds,
          `${signal} ${name}: the contextual ad serves, the audience is not used`,
        );
        expected[signal] = (expected[signal] ?? 0) + 1;
      }
    }
    assert.deepEqual(await unreadableCounts(), expected);
    const optOut = await teasers(world.blockId, `${valid}&us_privacy=1YYN`, { Cookie: cookie });
    assert.deepEqual([optOut.personalised, optOut.teasers.length], [false, 1], 'a US Privacy opt-out of sale');
    const noOptOut = await teasers(world.blockId, `${valid}&us_privacy=1YNN`, { Cookie: cookie });
    assert.deepEqual([noOptOut.personalised, noOptOut.teasers.length], [true, 2], 'no opt-out: personalised');
  });

  async function unreadableCounts(): Promise<Record<string, number>> {
    const metrics = await server.operator.get('/api/metrics');
    assert.equal(metrics.status, 200);
    const counts: Record<string, number> = {};
    for (const match of metrics.text.matchAll(/^nativa_consent_unreadable_total\{signal="([a-z_]+)"\} (\d+)$/gm)) {
      counts[match[1] ?? ''] = Number(match[2]);
    }
    return counts;
  }

  it('the audience pixel sets no cookie and adds no one without consent', async () => {
    const world = await retargetingWorld();
    const refusals: [string, Record<string, string>][] = [
      [`gdpr=1&gdpr_consent=${refused}`, {}],
      ['gdpr=1', {}],
      ['', { 'Sec-GPC': '1' }],
      [`gpp=${gppString({ usca: { SharingOptOut: 1 } })}`, {}],
    ];
    for (const [query, headers] of refusals) {
      const pixel = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${world.advertiserId}&${query}`, { headers });
      assert.equal(pixel.status, 200);
      assert.equal(pixel.header('content-type'), 'image/gif');
      assert.equal(pixel.header('set-cookie'), undefined, query);
    }
    assert.equal(await members(world.advertiserId), 0);
  });

  it('contextual serving and clicks work the same without consent', async () => {
    const world = await createWorld(server, { ads: [{ bidMicros: 200_000 }] });
    const answer = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers?gdpr=1&gdpr_consent=${refused}`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    const body = answer.json<{ personalised: boolean; teasers: { url: string }[] }>();
    assert.equal(body.personalised, false);
    assert.equal(body.teasers.length, 1);
    const click = await server.anonymous.get(pathOf(body.teasers[0]?.url ?? ''), { headers: { 'User-Agent': DESKTOP_UA } });
    assert.equal(click.status, 302);
  });

  it('a site set to never personalise serves unpersonalised whatever the signals', async () => {
    const world = await retargetingWorld();
    const consent = `gdpr=1&gdpr_consent=${consented}`;
    const pixel = await server.anonymous.get(`/api/serve/audience.gif?advertiser=${world.advertiserId}&${consent}`);
    const cookie = (pixel.header('set-cookie') ?? '').split(';')[0] ?? '';
    assert.equal((await teasers(world.blockId, consent, { Cookie: cookie })).teasers.length, 1);
    const set = await world.publisher.put(`/api/webmaster/sites/${world.siteId}/privacy`, { never_personalise: true });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.json<{ never_personalise: boolean }>().never_personalise, true);
    await engineOf(server).refresh();
    const answer = await teasers(world.blockId, consent, { Cookie: cookie });
    assert.deepEqual([answer.personalised, answer.teasers.length], [false, 0]);
  });
});
