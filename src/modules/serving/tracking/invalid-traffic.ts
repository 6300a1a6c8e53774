import type { Networks } from './networks.ts';
import { visitorTraits } from './visitor.ts';

/**
 * General invalid traffic (GIVT), decided on the request from the request alone
 * (docs/invalid-traffic.md, docs/adr/0050): a click so judged is recorded unbilled with its reason,
 * a teasers request so judged gets no teasers. The order is the cost order: headers, the cached
 * User-Agent verdict, the cached network, the page's host.
 */
export const GIVT_REASONS = ['bot', 'automation', 'datacenter', 'prefetch', 'foreign_site'] as const;
export type GivtReason = (typeof GIVT_REASONS)[number];

/**
 * Sophisticated invalid traffic (SIVT), decided after billing by the sweeps of
 * src/modules/invalid-traffic and refunded with the reason (`click_flood` is the older flood rule).
 */
export const SIVT_REASONS = ['no_opportunity', 'repeat_click', 'concentration', 'network_mismatch', 'click_flood'] as const;
export type SivtReason = (typeof SIVT_REASONS)[number];

export const INVALID_TRAFFIC_REASONS = [...GIVT_REASONS, ...SIVT_REASONS] as const;
export type InvalidTrafficReason = GivtReason | SivtReason;

/** The request's parts the decision reads (header values as Node gives them). */
export interface GivtRequest {
  userAgent: string | undefined;
  /** `Sec-CH-UA`: Chromium's brands, where a headless browser names itself even behind a normal User-Agent. */
  clientHints: string | string[] | undefined;
  /** `Sec-Purpose`, `Purpose`, `X-Moz`, `X-Purpose`: a browser's speculative fetch says so. */
  purposes: readonly (string | string[] | undefined)[];
  /** The visitor's address (request.ip). */
  address: string | undefined;
  /** The page's origin: `Origin`, else `Referer`; undefined when the request carries neither. */
  page: string | undefined;
}

export interface GivtSettings {
  networks: Networks;
  /** `localhost`, `*.localhost`, `*.test` and private addresses count as every site's (IVT_ALLOW_DEV_HOSTS). */
  allowDevHosts: boolean;
}

/** The hosts a block serves on: its site's domain (without `www.`) and the site's extra domains. */
export type SiteHosts = readonly string[];

/**
 * Why the request is general invalid traffic, or null. `browserOnly`: the click link, which only
 * a browser follows, counts a missing User-Agent as a robot; the teasers request does not (server
 * integrations call it without one). A missing Origin and Referer is never foreign: server-side
 * integrations, OpenRTB and privacy tools send neither, and a forger could omit them anyway, so
 * only a page that names a host not of the site is refused.
 */
export function givtReason(
  request: GivtRequest,
  siteHosts: SiteHosts | undefined,
  settings: GivtSettings,
  browserOnly: boolean,
): GivtReason | null {
  for (const purpose of request.purposes) {
    if (purpose !== undefined && PREFETCH.test(String(purpose))) return 'prefetch';
  }
  if (browserOnly && (request.userAgent === undefined || request.userAgent === '')) return 'bot';
  const robot = visitorTraits(request.userAgent).robot;
  if (robot !== null) return robot;
  if (request.clientHints !== undefined && HEADLESS_BRAND.test(String(request.clientHints))) return 'automation';
  if (settings.networks.of(request.address).hosting) return 'datacenter';
  if (request.page !== undefined && siteHosts !== undefined && !onSite(request.page, siteHosts, settings.allowDevHosts)) {
    return 'foreign_site';
  }
  return null;
}

const PREFETCH = /prefetch|prerender/i;
const HEADLESS_BRAND = /headless/i;
const DEV_HOST = /^(localhost|.+\.localhost|.+\.test|127\.\d+\.\d+\.\d+|\[::1\]|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+)$/;

/** The host of an Origin or Referer value, lower case; '' when it has none (`null`, garbage). */
export function pageHost(page: string): string {
  const start = page.indexOf('//');
  if (start < 0) return '';
  let end = start + 2;
  while (end < page.length) {
    const code = page.charCodeAt(end);
    // Stop at ':', '/', '?', '#'.
    if (code === 58 || code === 47 || code === 63 || code === 35) break;
    end += 1;
  }
  return page.slice(start + 2, end).toLowerCase();
}

/** The page's host is one of the site's domains or a subdomain of one. */
export function onSite(page: string, siteHosts: SiteHosts, allowDevHosts: boolean): boolean {
  const host = pageHost(page);
  if (host === '') return true;
  if (allowDevHosts && DEV_HOST.test(host)) return true;
  for (const domain of siteHosts) {
    if (
      host === domain ||
      (host.length > domain.length && host.endsWith(domain) && host[host.length - domain.length - 1] === '.')
    ) {
      return true;
    }
  }
  return false;
}

/** A site's hosts from its URL and extra domains: lower case, without `www.`, each once. */
export function siteHostsOf(url: string, domains: readonly string[]): string[] {
  const hosts = new Set<string>();
  const own = pageHost(url);
  if (own !== '') hosts.add(own.replace(/^www\./, ''));
  for (const domain of domains) hosts.add(domain.toLowerCase().replace(/^www\./, ''));
  return [...hosts];
}
