import assert from 'node:assert/strict';
import type { Db } from '../../src/db/database.ts';
import { insertAccount, insertBlock, insertCampaign, insertOffer, insertSite } from './fixtures.ts';
import type { TestServer } from './server.ts';
import { DESKTOP_UA, engineOf, pathOf } from './serving.ts';

/**
 * Visitors of a publisher's page as the serving endpoints see them behind a trusted proxy
 * (TRUST_PROXY, the address in X-Forwarded-For): a person's browser, robots of each kind, a click
 * farm. Used by the labelled-traffic tests and `npm run simulate:traffic`.
 */

export const SITE_URL = 'https://news.example.org';

/** Addresses of consumer and mobile networks (people) and of cloud networks (data centres), from the shipped ASN table. */
export const ADDRESSES = {
  /** Comcast, US (AS7922). */
  consumerUs: (n: number) => `73.12.${(n >> 8) & 255}.${n & 255}`,
  /** T-Mobile US (AS21928): the same country, another (mobile) network. */
  mobileUs: (n: number) => `172.56.${(n >> 8) & 255}.${n & 255}`,
  /** Beeline, Russia (AS8402). */
  consumerRu: (n: number) => `95.24.${(n >> 8) & 255}.${n & 255}`,
  /** Amazon Web Services (AS14618). */
  cloud: (n: number) => `3.5.${(n >> 8) & 255}.${n & 255}`,
};

/** The User-Agent of the nth person: desktop Chrome of varied versions (people's agents differ). */
export const personAgent = (n: number) => DESKTOP_UA.replace('131.0.0.0', `${120 + (n % 12)}.0.${n % 97}.0`);

export interface TrafficWorld {
  advertiserId: number;
  publisherId: number;
  siteId: number;
  blockIds: number[];
  offerIds: number[];
}

/** An advertiser with money and `ads` ads, a publisher's active site on SITE_URL with `blocks` blocks of one teaser. */
export async function createTrafficWorld(
  server: TestServer,
  name: string,
  options: { blocks?: number; ads?: number; depositMicros?: number } = {},
): Promise<TrafficWorld> {
  const db = server.server.context.db;
  await db.updateTable('campaigns').set({ active: false }).where('active', '=', true).execute();
  const advertiser = await insertAccount(db, {
    kind: 'advertiser',
    username: `${name}-advertiser`,
    depositMicros: options.depositMicros ?? 1_000_000_000,
  });
  const publisher = await insertAccount(db, { kind: 'publisher', username: `${name}-publisher` });
  const offerIds: number[] = [];
  for (let index = 0; index < (options.ads ?? 1); index += 1) {
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    offerIds.push((await insertOffer(db, { campaignId: campaign.id, bidMicros: 100_000 })).id);
  }
  const site = await insertSite(db, { publisherId: publisher.id, url: SITE_URL });
  const blockIds: number[] = [];
  for (let index = 0; index < (options.blocks ?? 1); index += 1) {
    blockIds.push((await insertBlock(db, { siteId: site.id, teaserCount: 1 })).id);
  }
  await engineOf(server).refresh();
  return { advertiserId: advertiser.id, publisherId: publisher.id, siteId: site.id, blockIds, offerIds };
}

export interface Visit {
  address: string;
  userAgent?: string;
  /** Extra request headers (Origin, Sec-Purpose, Sec-CH-UA...). */
  headers?: Record<string, string>;
}

function headersOf(visit: Visit, page: boolean): Record<string, string> {
  const headers: Record<string, string> = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-For': visit.address };
  if (visit.userAgent !== undefined) headers['User-Agent'] = visit.userAgent;
  if (page) headers.Origin = SITE_URL;
  return { ...headers, ...visit.headers };
}

export interface ServedTeaser {
  url: string;
  view: string;
}

/** The loader's teasers request from the site's page. */
export async function requestTeasers(server: TestServer, blockId: number, visit: Visit): Promise<ServedTeaser[]> {
  const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, { headers: headersOf(visit, true) });
  assert.equal(response.status, 200, response.text);
  return response.json<{ teasers: ServedTeaser[] }>().teasers;
}

/** The loader's beacon: the teasers were a second in view. */
export async function sendViews(server: TestServer, teasers: readonly ServedTeaser[], visit: Visit): Promise<void> {
  const response = await server.anonymous.request('POST', '/api/serve/views', {
    raw: teasers.map((teaser) => teaser.view).join('\n'),
    contentType: 'text/plain;charset=UTF-8',
    headers: headersOf(visit, true),
  });
  assert.equal(response.status, 204, response.text);
}

/** Follows a click link as the browser does (Referer: the site's page); returns the link's click id. */
export async function followLink(server: TestServer, teaser: ServedTeaser, visit: Visit): Promise<string> {
  const headers = { Referer: `${SITE_URL}/article`, ...headersOf(visit, false) };
  const token = pathOf(teaser.url).split('/').pop() ?? '';
  const response = await server.anonymous.get(pathOf(teaser.url), { headers });
  assert.equal(response.status, 302, response.text);
  // A refused click reaches the ad without an id: the link's own says which click it was.
  return engineOf(server).signer.verifyClick(token, server.clock.now()).claims?.clickId ?? '';
}

/** A person: loads the page, looks at the teaser for a second and a half, thinks, clicks. */
export async function personClicks(
  server: TestServer,
  blockId: number,
  visit: Visit,
  thinkMs = 3000,
): Promise<string | undefined> {
  const [teaser] = await requestTeasers(server, blockId, visit);
  if (teaser === undefined) return undefined;
  server.clock.advance(1500);
  await sendViews(server, [teaser], visit);
  server.clock.advance(thinkMs);
  return followLink(server, teaser, visit);
}

/** What became of clicks: billed and kept, refused on arrival (with the rule), or refunded (with the reason). */
export type ClickFate = { fate: 'billed' } | { fate: 'refused'; reason: string } | { fate: 'refunded'; reason: string };

/** Waits for settlement, then each click's fate by the link's click id (the ad URL's {click_id}). */
export async function fatesOf(server: TestServer, linkIds: readonly string[]): Promise<Map<string, ClickFate>> {
  await engineOf(server).settled();
  return clickFates(server.server.context.db, linkIds);
}

export async function clickFates(db: Db, clickIds: readonly string[]): Promise<Map<string, ClickFate>> {
  const fates = new Map<string, ClickFate>();
  if (clickIds.length === 0) return fates;
  const rows = await db
    .selectFrom('clicks as c')
    .leftJoin('refunded_clicks as rc', 'rc.click_id', 'c.click_id')
    .leftJoin('refunds as r', 'r.id', 'rc.refund_id')
    .select(['c.click_id', 'c.status', 'c.invalid_reason', 'r.reason'])
    .where('c.click_id', 'in', [...clickIds])
    .execute();
  for (const row of rows) {
    if (row.reason !== null) fates.set(row.click_id, { fate: 'refunded', reason: row.reason });
    else if (row.status === 'billed') fates.set(row.click_id, { fate: 'billed' });
    else fates.set(row.click_id, { fate: 'refused', reason: row.invalid_reason ?? row.status });
  }
  return fates;
}

/** Runs the after-the-fact rules once the clicks have settled and their views had time to come. */
export async function sweepInvalidTraffic(server: TestServer): Promise<void> {
  const sweeper = server.server.context.invalidTraffic;
  assert.ok(sweeper, 'the server runs the invalid-traffic rules');
  await engineOf(server).settled();
  await engineOf(server).impressions.flush();
  server.clock.advance(server.server.context.config.sivt.settleMs + 1);
  await sweeper.sweep();
}
