/**
 * `npm run simulate:traffic`: people and each kind of invalid traffic, in known proportions,
 * through a real server on the embedded database (TLS, behind a trusted proxy so that each visitor
 * has its own address), with the after-the-fact rules swept every 30 simulated seconds as in
 * production. Prints, per category, clicks sent / refused on arrival / refunded / billed, and
 * checks the goals: at least 99 % of people's clicks billed, at most 5 % of each invalid
 * category's, at most 1 % of all invalid clicks. Exits 1 when a goal is missed.
 *
 * Time is simulated (an injected clock), so the run takes as long as its requests: well under two
 * minutes for about six thousand.
 */
import { startTestServer, type TestServer } from '../test/helpers/server.ts';
import { BOT_UA, DESKTOP_UA } from '../test/helpers/serving.ts';
import {
  ADDRESSES,
  clickFates,
  createTrafficWorld,
  followLink,
  personAgent,
  requestTeasers,
  sendViews,
  type Visit,
} from '../test/helpers/traffic.ts';

/** A seeded generator (mulberry32): the same run every time. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const random = seeded(36);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const CATEGORIES = [
  'human',
  'bot',
  'automation',
  'datacenter',
  'prefetch',
  'foreign_site',
  'no_opportunity',
  'repeat_click',
  'concentration',
  'network_mismatch',
] as const;
type Category = (typeof CATEGORIES)[number];

const SWEEP_EVERY_MS = 30_000;

class Simulation {
  readonly clicks = new Map<Category, string[]>(CATEGORIES.map((category) => [category, []]));
  /** A repeat clicker's first clicks are a person's as far as anyone can tell: reported apart. */
  readonly allowedRepeats: string[] = [];
  private sweptAt: number;
  readonly server: TestServer;
  readonly humanBlocks: number[];
  readonly farmBlock: number;

  constructor(server: TestServer, humanBlocks: number[], farmBlock: number) {
    this.server = server;
    this.humanBlocks = humanBlocks;
    this.farmBlock = farmBlock;
    this.sweptAt = server.clock.now();
  }

  async advance(ms: number): Promise<void> {
    this.server.clock.advance(ms);
    if (this.server.clock.now() - this.sweptAt >= SWEEP_EVERY_MS) {
      this.sweptAt = this.server.clock.now();
      await this.sweep();
    }
  }

  async sweep(): Promise<void> {
    const { serving, invalidTraffic } = this.server.server.context;
    await serving?.settled();
    await serving?.impressions.flush();
    await invalidTraffic?.sweep();
  }

  record(category: Category, clickId: string): void {
    this.clicks.get(category)?.push(clickId);
  }

  /** A person's page view: teasers, a second and a half in view, maybe a click after thinking. */
  async personVisit(visit: Visit, blockId: number, clicks: boolean): Promise<string | undefined> {
    const [teaser] = await requestTeasers(this.server, blockId, visit);
    if (teaser === undefined) return undefined;
    await this.advance(1500);
    await sendViews(this.server, [teaser], visit);
    if (!clicks) return undefined;
    await this.advance(2000 + Math.floor(random() * 20_000));
    return followLink(this.server, teaser, visit);
  }

  /** A link as a person was served it (robots of the kinds refused on arrival follow such links). */
  async harvestedLink(blockId: number) {
    const [teaser] = await requestTeasers(this.server, blockId, { address: ADDRESSES.consumerUs(9999), userAgent: DESKTOP_UA });
    if (teaser === undefined) throw new Error('a person was not served');
    await this.advance(500);
    return teaser;
  }
}

async function people(sim: Simulation): Promise<void> {
  // 3000 page views by 1500 people on consumer and mobile networks of two countries; 5 % click.
  for (let n = 0; n < 3000; n += 1) {
    const person = n % 1500;
    const address = pick([ADDRESSES.consumerUs, ADDRESSES.mobileUs, ADDRESSES.consumerRu])(person + 1);
    const visit = { address, userAgent: personAgent(person) };
    const id = await sim.personVisit(visit, pick(sim.humanBlocks), random() < 0.05);
    if (id !== undefined) sim.record('human', id);
    await sim.advance(200);
  }
}

async function refusedOnArrival(sim: Simulation): Promise<void> {
  const blockId = sim.humanBlocks[0] ?? 0;
  const kinds: [Category, (n: number) => Visit][] = [
    [
      'bot',
      (n) => ({ address: ADDRESSES.consumerUs(3000 + n), userAgent: pick([BOT_UA, 'python-requests/2.32.3', 'curl/8.5.0']) }),
    ],
    [
      'automation',
      (n) =>
        n % 2 === 0
          ? { address: ADDRESSES.consumerUs(3100 + n), userAgent: DESKTOP_UA.replace('Chrome/', 'HeadlessChrome/') }
          : {
              address: ADDRESSES.consumerUs(3100 + n),
              userAgent: DESKTOP_UA,
              headers: { 'Sec-CH-UA': '"HeadlessChrome";v="131"' },
            },
    ],
    ['datacenter', (n) => ({ address: ADDRESSES.cloud(n), userAgent: personAgent(n) })],
    [
      'prefetch',
      (n) => ({ address: ADDRESSES.consumerUs(3200 + n), userAgent: personAgent(n), headers: { 'Sec-Purpose': 'prefetch' } }),
    ],
    [
      'foreign_site',
      (n) => ({
        address: ADDRESSES.consumerUs(3300 + n),
        userAgent: personAgent(n),
        headers: { Referer: 'https://copycat.example.net/stolen-page' },
      }),
    ],
  ];
  for (const [category, visitor] of kinds) {
    for (let n = 0; n < 50; n += 1) {
      const visit = visitor(n);
      // They are served nothing themselves; the link they follow is one a person was served.
      await requestTeasers(sim.server, blockId, visit);
      const teaser = await sim.harvestedLink(blockId);
      sim.record(category, await followLink(sim.server, teaser, visit));
      await sim.advance(1000);
    }
  }
}

async function sophisticated(sim: Simulation): Promise<void> {
  const blockId = sim.humanBlocks[1] ?? 0;
  // Robots with browsers' agents on consumer networks that fetch the teasers and click at once.
  for (let n = 0; n < 50; n += 1) {
    const visit = { address: ADDRESSES.consumerUs(4000 + n), userAgent: personAgent(n) };
    const [teaser] = await requestTeasers(sim.server, blockId, visit);
    if (teaser === undefined) continue;
    await sim.advance(100 + Math.floor(random() * 700));
    sim.record('no_opportunity', await followLink(sim.server, teaser, visit));
    await sim.advance(2000);
  }
  // Ten visitors clicking the same advertiser nine times each, viewing first like people.
  for (let n = 0; n < 10; n += 1) {
    const visit = { address: ADDRESSES.consumerUs(4100 + n), userAgent: personAgent(n + 7) };
    for (let time = 0; time < 9; time += 1) {
      const id = await sim.personVisit(visit, blockId, true);
      if (id === undefined) continue;
      if (time < 3) sim.allowedRepeats.push(id);
      else sim.record('repeat_click', id);
      await sim.advance(30_000);
    }
  }
  // Links served in the US, clicked minutes later from a Russian network.
  for (let n = 0; n < 50; n += 1) {
    const [teaser] = await requestTeasers(sim.server, blockId, {
      address: ADDRESSES.consumerUs(4200 + n),
      userAgent: personAgent(n),
    });
    if (teaser === undefined) continue;
    await sim.advance(1500);
    await sendViews(sim.server, [teaser], { address: ADDRESSES.consumerUs(4200 + n), userAgent: personAgent(n) });
    await sim.advance(60_000);
    sim.record(
      'network_mismatch',
      await followLink(sim.server, teaser, { address: ADDRESSES.consumerRu(4200 + n), userAgent: personAgent(n) }),
    );
  }
  // A click farm in one /24: different addresses and browsers, each viewing and clicking.
  for (let n = 0; n < 60; n += 1) {
    const visit = { address: `81.2.69.${n + 1}`, userAgent: personAgent(100 + n) };
    const id = await sim.personVisit(visit, sim.farmBlock, true);
    if (id !== undefined) sim.record('concentration', id);
    await sim.advance(10_000);
  }
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${((100 * part) / whole).toFixed(1)} %`;
}

async function main(): Promise<void> {
  const started = performance.now();
  const server = await startTestServer({ env: { TRUST_PROXY: 'true', IVT_ALLOW_DEV_HOSTS: 'false' } });
  try {
    const world = await createTrafficWorld(server, 'simulation', { blocks: 3, ads: 3 });
    const [humanA = 0, humanB = 0, farm = 0] = world.blockIds;
    const sim = new Simulation(server, [humanA, humanB], farm);
    await people(sim);
    await refusedOnArrival(sim);
    await sophisticated(sim);
    await sim.advance(SWEEP_EVERY_MS);
    await sim.sweep();
    const db = server.server.context.db;
    const lines = [
      '| category | clicks sent | refused | refunded | billed | billed share | reasons |',
      '|---|---:|---:|---:|---:|---:|---|',
    ];
    let invalidSent = 0;
    let invalidBilled = 0;
    const failures: string[] = [];
    const row = async (label: string, ids: readonly string[]) => {
      const fates = await clickFates(db, ids);
      const count = (fate: string) => [...fates.values()].filter((value) => value.fate === fate).length;
      const billed = count('billed');
      const reasons = new Map<string, number>();
      for (const value of fates.values()) {
        if (value.fate !== 'billed') reasons.set(value.reason, (reasons.get(value.reason) ?? 0) + 1);
      }
      const why = [...reasons].map(([reason, n]) => `${reason} ${n}`).join(', ');
      lines.push(
        `| ${label} | ${ids.length} | ${count('refused')} | ${count('refunded')} | ${billed} | ${percent(billed, ids.length)} | ${why} |`,
      );
      return billed;
    };
    for (const category of CATEGORIES) {
      const ids = sim.clicks.get(category) ?? [];
      const billed = await row(category, ids);
      if (category === 'human') {
        if (billed < 0.99 * ids.length) failures.push(`people: ${percent(billed, ids.length)} billed, goal ≥ 99 %`);
      } else {
        invalidSent += ids.length;
        invalidBilled += billed;
        if (billed > 0.05 * ids.length) failures.push(`${category}: ${percent(billed, ids.length)} billed, goal ≤ 5 %`);
      }
    }
    await row("repeat clickers' first three (allowed)", sim.allowedRepeats);
    lines.push(`| all invalid | ${invalidSent} | | | ${invalidBilled} | ${percent(invalidBilled, invalidSent)} | |`);
    if (invalidBilled > 0.01 * invalidSent)
      failures.push(`all invalid: ${percent(invalidBilled, invalidSent)} billed, goal ≤ 1 %`);
    process.stdout.write(`${lines.join('\n')}\n\n`);
    process.stdout.write(
      failures.length === 0
        ? `goals met: ≥ 99 % of people's clicks billed, ≤ 5 % of each invalid category, ≤ 1 % of all invalid (${((performance.now() - started) / 1000).toFixed(0)} s)\n`
        : `goals missed:\n${failures.map((failure) => `- ${failure}`).join('\n')}\n`,
    );
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    await server.close();
  }
}

await main();
