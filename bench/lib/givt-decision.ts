import { type GivtRequest, givtReason } from '../../src/modules/serving/tracking/invalid-traffic.ts';
import { Networks } from '../../src/modules/serving/tracking/networks.ts';

/**
 * The decision of general invalid traffic for one request, in process: a mix of requests as a
 * network sees them (people's browsers of a few hundred versions on a few thousand /24 networks,
 * robots, data centres, prefetches, pages of other sites), after one pass that fills the caches as
 * serving's first minutes do. Returns the mean cost of one decision in microseconds.
 */
export function measureGivtDecision(decisions = 2_000_000): { microsPerDecision: number; invalid: number } {
  const settings = { networks: new Networks({ asnFiles: [], hostingFile: undefined }), allowDevHosts: false };
  const siteHosts = ['news.example.org', 'mirror.example.com'];
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/VERSION Safari/537.36';
  const requests: GivtRequest[] = [];
  for (let n = 0; n < 4096; n += 1) {
    const kind = n % 20;
    const userAgent =
      kind === 0
        ? 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
        : kind === 1
          ? chrome.replace('Chrome/', 'HeadlessChrome/').replace('VERSION', '131.0.0.0')
          : chrome.replace('VERSION', `${110 + (n % 25)}.0.${n % 300}.0`);
    requests.push({
      userAgent,
      clientHints: '"Chromium";v="131", "Not_A Brand";v="24"',
      purposes: [kind === 2 ? 'prefetch' : undefined, undefined, undefined, undefined],
      address: kind === 3 ? `3.5.${n & 255}.9` : `73.${(n >> 8) & 15}.${n & 255}.${n % 200}`,
      page: kind === 4 ? 'https://copycat.example.net/page' : 'https://news.example.org/article',
    });
  }
  let invalid = 0;
  for (const request of requests) if (givtReason(request, siteHosts, settings, true) !== null) invalid += 1;
  invalid = 0;
  const started = process.hrtime.bigint();
  for (let index = 0; index < decisions; index += 1) {
    if (givtReason(requests[index & 4095] as GivtRequest, siteHosts, settings, true) !== null) invalid += 1;
  }
  const elapsedNs = Number(process.hrtime.bigint() - started);
  return { microsPerDecision: elapsedNs / decisions / 1000, invalid };
}
