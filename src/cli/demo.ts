import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { rootCertificates } from 'node:tls';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { loadConfig } from '../config.ts';
import { loadSharp } from '../modules/images/index.ts';
import { closeOnSignals, type RunningServer, startServer } from '../server.ts';
import { type CliApi, cliApi, data, type NativaClient } from './api.ts';
import { type Command, UsageError } from './command.ts';

/**
 * `nativa demo`: a demo advertiser and publisher with campaigns, ads (real images), a site and
 * blocks; simulated visitors through the real serving, click and conversion endpoints; the tokens
 * to look at every statistic; and a publisher's page at /demo/ on the server's own origin that shows
 * the teasers in a browser.
 *
 * Everything is created through the public API (operator, advertiser and publisher endpoints), so
 * the demo works against any running server as well as one it starts itself.
 */

const PRODUCTS = [
  { title: 'Trail running shoes', price: 90, color: '#e4572e' },
  { title: 'Noise-cancelling headphones', price: 149, color: '#17bebb' },
  { title: 'Espresso machine', price: 229, color: '#7b4b2a' },
  { title: 'Mechanical keyboard', price: 119, color: '#4059ad' },
  { title: 'Yoga mat, 6 mm', price: 35, color: '#76b041' },
  { title: 'Smart watch', price: 199, color: '#2e282a' },
  { title: 'Cast iron skillet', price: 45, color: '#9c6644' },
  { title: 'Rain jacket', price: 99, color: '#ffc914' },
] as const;

const AGENTS = [
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
];

const GOAL_NAMES = ['purchase', 'registration', 'intermediate'] as const;

async function productImage(title: string, color: string, width: number, height: number): Promise<Buffer> {
  const initials = title
    .split(' ')
    .slice(0, 2)
    .map((word) => word[0] ?? '')
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${color}"/><stop offset="1" stop-color="#ffffff"/></linearGradient></defs>
  <rect width="100%" height="100%" fill="url(#g)"/>
  <circle cx="${width / 2}" cy="${height / 2}" r="${Math.min(width, height) / 3}" fill="#ffffff" fill-opacity="0.35"/>
  <text x="50%" y="54%" font-family="sans-serif" font-size="${Math.round(height / 4)}" font-weight="700" text-anchor="middle" fill="#222">${initials}</text>
</svg>`;
  const sharp = await loadSharp();
  return sharp(Buffer.from(svg)).jpeg({ quality: 85 }).toBuffer();
}

interface DemoWorld {
  advertiserId: number;
  publisherId: number;
  advertiserToken: string;
  publisherToken: string;
  blockIds: number[];
  campaignIds: number[];
}

/** The product's photo stand-in as a data URI, the form POST /advertiser/offers takes. */
async function productImageUri(title: string, color: string, width: number, height: number): Promise<string> {
  return `data:image/jpeg;base64,${(await productImage(title, color, width, height)).toString('base64')}`;
}

/**
 * Everything the demo shows, made through the public API as real users would: the operator
 * creates and funds the accounts and approves what they submit, the advertiser creates campaigns
 * and ads with images, the publisher a site and blocks.
 */
async function createDemoWorld(operator: NativaClient, baseUrl: string, dataDir: string, pageOrigin: string): Promise<DemoWorld> {
  const suffix = randomBytes(3).toString('hex');
  const apis: CliApi[] = [];
  const create = async (type: 'advertiser' | 'publisher') => {
    const username = `demo-${type}-${suffix}`;
    const body = { type, username, email: `${username}@demo.nativa.test` };
    const { id } = await data(operator.POST('/api/admin/users', { body }));
    const { token } = await data(
      operator.POST('/api/admin/users/{id}/tokens', { params: { path: { id } }, body: { name: 'demo' } }),
    );
    const api = cliApi(baseUrl, token, dataDir);
    apis.push(api);
    return { id, token, client: api.client };
  };
  const approve = { body: { status: 1 as const } };
  try {
    const advertiser = await create('advertiser');
    const publisher = await create('publisher');
    await operator.POST('/api/admin/users/{id}/balance', {
      params: { path: { id: advertiser.id } },
      body: { amount: 1000, comment: 'nativa demo' },
    });

    const campaignIds: number[] = [];
    for (const [index, title] of ['Spring sale', 'Home & kitchen'].entries()) {
      const campaign = await data(
        advertiser.client.POST('/api/advertiser/campaigns', { body: { title, category_id: index === 0 ? 5 : 3 } }),
      );
      const campaignId = campaign.id;
      await operator.PUT('/api/admin/campaigns/{id}', { params: { path: { id: campaignId } }, ...approve });
      campaignIds.push(campaignId);
      for (const [offset, product] of PRODUCTS.slice(index * 4, index * 4 + 4).entries()) {
        const number = index * 4 + offset;
        const body = {
          campaignId,
          title: product.title,
          description: `${product.title}, free delivery`,
          price: product.price,
          url: `${pageOrigin}/shop/${number}?click_id={click_id}`,
          clickPrice: (50_000 + number * 15_000) / 1_000_000,
          square: await productImageUri(product.title, product.color, 328, 328),
          rectangle: await productImageUri(product.title, product.color, 492, 328),
        };
        const offer = await data(advertiser.client.POST('/api/advertiser/offers', { body }));
        await operator.PUT('/api/admin/offers/{id}', { params: { path: { id: offer.id } }, ...approve });
      }
    }
    const site = await data(publisher.client.POST('/api/webmaster/sites', { body: { url: pageOrigin, category_id: 101 } }));
    const siteId = site.id;
    await operator.PUT('/api/admin/sites/{id}', { params: { path: { id: siteId } }, ...approve });
    const blockIds: number[] = [];
    for (const [title, count] of [
      ['Below the article', 4],
      ['Sidebar', 3],
    ] as const) {
      const block = await data(
        publisher.client.POST('/api/webmaster/sites/{id}/blocks', { params: { path: { id: siteId } }, body: { title, count } }),
      );
      blockIds.push(block.id);
    }
    return {
      advertiserId: advertiser.id,
      publisherId: publisher.id,
      advertiserToken: advertiser.token,
      publisherToken: publisher.token,
      blockIds,
      campaignIds,
    };
  } finally {
    for (const api of apis) api.close();
  }
}

function visit(
  agent: https.Agent,
  url: string,
  userAgent: string,
  cookie?: string,
): Promise<{ status: number; location?: string; cookie?: string; body: string }> {
  const headers: Record<string, string> = { 'User-Agent': userAgent, ...(cookie === undefined ? {} : { Cookie: cookie }) };
  return new Promise((resolve, reject) => {
    https
      .get(url, { agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            cookie: response.headers['set-cookie']?.[0]?.split(';')[0],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      })
      .on('error', reject);
  });
}

/** The loader's viewability beacon, as `navigator.sendBeacon` sends it: tokens in a text/plain body. */
function sendBeacon(agent: https.Agent, url: string, tokens: string[], userAgent: string): Promise<number> {
  const body = tokens.join('\n');
  return new Promise((resolve, reject) => {
    https
      .request(
        url,
        {
          agent,
          method: 'POST',
          headers: {
            'User-Agent': userAgent,
            'Content-Type': 'text/plain;charset=UTF-8',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      )
      .on('error', reject)
      .end(body);
  });
}

function progress(done: number, total: number, clicks: number, conversions: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} visitors, ${clicks} clicks, ${conversions} conversions`,
  );
  if (done === total) process.stderr.write('\n');
}

/**
 * Visitors are served a block's teasers; most scroll to them (the loader's beacon reports them
 * viewable); some click; some of those convert.
 */
async function simulateVisitors(baseUrl: string, agent: https.Agent, world: DemoWorld, visitors: number) {
  let clicks = 0;
  let conversions = 0;
  for (let index = 0; index < visitors; index += 1) {
    const userAgent = AGENTS[index % AGENTS.length] ?? '';
    const blockId = world.blockIds[index % world.blockIds.length] ?? 0;
    const served = await visit(agent, `${baseUrl}/api/serve/blocks/${blockId}/teasers`, userAgent);
    if (served.status !== 200) throw new Error(`teasers: ${served.status} ${served.body}`);
    const teasers = (JSON.parse(served.body) as { teasers: { url: string; view: string }[] }).teasers;
    if (teasers.length > 0 && Math.random() < 0.7) {
      const tokens = teasers.map((teaser) => teaser.view);
      const status = await sendBeacon(agent, `${baseUrl}/api/serve/views`, tokens, userAgent);
      if (status !== 204) throw new Error(`view beacon: ${status}`);
    }
    const teaser = teasers[Math.floor(Math.random() * teasers.length)];
    if (teaser !== undefined && Math.random() < 0.25) {
      const click = await visit(agent, teaser.url, userAgent);
      const clickId = click.location ? new URL(click.location).searchParams.get('click_id') : null;
      if (click.status === 302) clicks += 1;
      if (clickId && click.cookie && Math.random() < 0.3) {
        // The shop's thank-you page fires the pixel in the browser that clicked (its cookie).
        const goal = GOAL_NAMES[Math.floor(Math.random() * GOAL_NAMES.length)] ?? 'purchase';
        const pixel = await visit(
          agent,
          `${baseUrl}/api/serve/pixel.gif?click_id=${clickId}&goal=${goal}`,
          userAgent,
          click.cookie,
        );
        if (pixel.status === 200) conversions += 1;
      }
    }
    if (index % 5 === 4 || index === visitors - 1) progress(index + 1, visitors, clicks, conversions);
  }
  return { clicks, conversions };
}

/** What the demo page shows, known once the demo world exists. */
interface DemoSite {
  blockIds: number[];
}

/**
 * The publisher's demo page (embed code of every block) at /demo/ and the shop's landing pages
 * (with the conversion pixel) at /demo/shop/N, on the server's own HTTPS origin: one certificate
 * to accept, and the page, the teasers and the pixel all come from it.
 */
function registerDemoPages(app: FastifyInstance, site: DemoSite): void {
  const html = (reply: FastifyReply, body: string) => {
    // Whatever the Accept header asks for (a browser's includes XML): this is a page.
    reply.serializer((payload: unknown) => payload as string);
    reply.type('text/html; charset=utf-8');
    reply.header('Cache-Control', 'no-store');
    return body;
  };
  const embed = (id: number) => `<div data-nativa-block="${id}"></div><script async src="/api/serve/loader.js"></script>`;
  const options = { config: { access: 'public' as const }, schema: { hide: true } };
  app.get('/demo', options, (_request, reply) => reply.redirect('/demo/', 302));
  app.get('/demo/', options, async (_request, reply) => {
    if (site.blockIds.length === 0)
      return html(reply.code(503), '<!doctype html><p>The demo is still being set up; reload in a moment.</p>');
    return html(
      reply,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Nativa demo: a publisher's page</title>
<style>body{font:16px/1.5 sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}aside{border-top:1px solid #ddd;margin-top:2rem;padding-top:1rem}</style></head>
<body><h1>The Daily Demo</h1><p>This page is a publisher's article with two Nativa blocks pasted in as their embed code.
Each teaser is marked as an ad and names the advertiser's domain; a click is billed and lands on the demo shop.</p>
<article><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. Integer nec odio. Praesent libero.</p></article>
<aside><h2>Recommended</h2>${embed(site.blockIds[0] ?? 0)}</aside><aside><h2>Sponsored</h2>${embed(site.blockIds[1] ?? 0)}</aside></body></html>`,
    );
  });
  app.get('/demo/shop/:product', options, async (request, reply) => {
    const clickId = encodeURIComponent(String((request.query as { click_id?: unknown }).click_id ?? ''));
    return html(
      reply,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo shop</title></head><body>
<h1>Thanks for visiting the demo shop</h1><p>This landing page fired the conversion pixel for click <code>${clickId}</code> (goal: purchase).</p>
<img src="/api/serve/pixel.gif?click_id=${clickId}&amp;goal=purchase" width="1" height="1" alt=""></body></html>`,
    );
  });
}

async function reachable(agent: https.Agent, baseUrl: string): Promise<boolean> {
  try {
    return (await visit(agent, `${baseUrl}/api/health`, 'nativa-demo')).status === 200;
  } catch {
    return false;
  }
}

export const demoCommand: Command = {
  name: 'demo',
  usage: 'demo [--visitors N] [--exit]',
  summary: 'Create demo accounts, ads and blocks, simulate visitors, print tokens, serve a demo page.',
  async run({ args }) {
    const visitors = Number(args.options.visitors ?? 300);
    if (!Number.isInteger(visitors) || visitors < 1) throw new UsageError('--visitors must be a positive integer');
    // Request logs would bury the progress bar: the demo logs warnings only unless told otherwise.
    const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL || 'warn' });
    const baseUrl = (process.env.NATIVA_URL || `https://localhost:${config.port}`).replace(/\/+$/, '');
    const certFile = path.join(config.dataDir, 'tls', 'cert.pem');
    const trust = () => (existsSync(certFile) ? [...rootCertificates, readFileSync(certFile, 'utf8')] : undefined);
    let agent = new https.Agent({ ca: trust(), keepAlive: true });

    // A running server is used as it is; otherwise the demo starts one itself.
    let running: RunningServer | undefined;
    const site: DemoSite = { blockIds: [] };
    if (!(await reachable(agent, baseUrl))) {
      running = await startServer(config, { routes: (app) => registerDemoPages(app, site) });
      agent.destroy();
      agent = new https.Agent({ ca: trust(), keepAlive: true });
    }
    const tokenFile = path.join(config.dataDir, 'operator.token');
    const operatorToken = process.env.NATIVA_TOKEN || (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : '');
    if (!operatorToken) throw new UsageError(`no operator token: set NATIVA_TOKEN or keep ${tokenFile}`);
    const operator = cliApi(baseUrl, operatorToken, config.dataDir);
    // The demo's own server shows the page on its origin; another server's demo has no page to land on.
    const pageOrigin = running ? `${baseUrl}/demo` : 'https://shop.demo.nativa.test';
    try {
      const world = await createDemoWorld(operator.client, baseUrl, config.dataDir, pageOrigin);
      if (running) await running.context.serving?.refresh();
      else await new Promise((resolve) => setTimeout(resolve, config.servingRefreshMs + 500));
      const { clicks, conversions } = await simulateVisitors(baseUrl, agent, world, visitors);
      // Views are written within a second and clicks settled within ~0.1 s; wait for both so every
      // statistic shows at once.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      site.blockIds = world.blockIds;
      process.stdout.write(
        [
          '',
          `Nativa demo ready: ${visitors} visitors, ${clicks} clicks, ${conversions} conversions.`,
          '',
          `  advertiser  id ${world.advertiserId}  token ${world.advertiserToken}`,
          `  publisher   id ${world.publisherId}  token ${world.publisherToken}`,
          `  campaigns   ${world.campaignIds.join(', ')}    blocks ${world.blockIds.join(', ')}`,
          '',
          running
            ? `  Teasers in a browser: ${pageOrigin}/  (accept the self-signed certificate once)`
            : `  Embed code: <div data-nativa-block="${world.blockIds[0]}"></div><script async src="${baseUrl}/api/serve/loader.js"></script>`,
          `  Statistics: curl -s --cacert ${certFile} -H "Auth-Token: ${world.advertiserToken}" ${baseUrl}/api/advertiser/campaigns`,
          `              curl -s --cacert ${certFile} -H "Auth-Token: ${world.publisherToken}" ${baseUrl}/api/webmaster/statistic`,
          running && !args.flags.has('exit') ? '\nThe server keeps running (Ctrl-C stops it).' : '',
          '',
        ].join('\n'),
      );
      if (running && args.flags.has('exit')) await running.close();
      else if (running) closeOnSignals(running);
    } finally {
      operator.close();
      agent.destroy();
    }
  },
};
