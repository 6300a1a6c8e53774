// Loads the click endpoint with a fresh signed link per request, from its own process (like
// load-worker.ts). The links are signed up front here, with the server's secret, so signing costs
// the server nothing. Input: JSON in argv[2]; output: one JSON line with the result.
import autocannon from 'autocannon';
import { ClickSigner, newClickId } from '../../src/modules/serving/click-token.ts';

interface ClickLoadSpec {
  url: string;
  connections: number;
  durationSeconds: number;
  secret: string;
  issuedAt: number;
  /** One entry per servable ad: where its clicks come from. */
  ads: { offerId: number; campaignId: number; siteId: number; blockId: number; chargeMicros: number }[];
  /** How many links to sign (more than the run can use). */
  links: number;
  userAgent: string;
  /** Further request headers (X-Forwarded-* behind a trusted proxy). */
  headers?: Record<string, string>;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as ClickLoadSpec;
const signer = new ClickSigner(spec.secret);
const paths: string[] = [];
for (let index = 0; index < spec.links; index += 1) {
  const ad = spec.ads[index % spec.ads.length];
  if (ad === undefined) break;
  paths.push(
    `/api/serve/click/${signer.sign({ ...ad, clickId: newClickId(), device: 1, country: '', issuedAt: spec.issuedAt })}`,
  );
}
let next = 0;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.durationSeconds,
  headers: { 'User-Agent': spec.userAgent, ...spec.headers },
  requests: [
    {
      setupRequest: (request) => {
        const path = paths[next % paths.length] ?? '/';
        next += 1;
        return { ...request, path };
      },
    },
  ],
});
const statuses: Record<string, number> = {};
for (const key of ['1xx', '2xx', '3xx', '4xx', '5xx'] as const) statuses[key] = result[key];
process.stdout.write(
  `${JSON.stringify({
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
    linksUsed: next,
  })}\n`,
);
