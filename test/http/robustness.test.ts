import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { insertBlock, insertCampaign, insertOffer, insertSite } from '../helpers/fixtures.ts';
import type { TestClient, TestResponse } from '../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Property-based robustness of every operation in the server's own OpenAPI document: for each
 * one, fast-check draws bad values from that operation's schemas (numbers at and beyond every
 * bound, exponent forms, Infinity, NaN, NUL, unpaired surrogates, wrong types, huge strings, deep
 * nesting, malformed percent-encoding) into one path parameter, query parameter or body field at
 * a time, the rest of the request staying valid. Every answer must be a 4xx in the error envelope
 * (never a 5xx), and the database must be exactly as before.
 *
 * Cases are drawn with a fixed seed and a fixed number per operation, so the run is the same
 * every time and bounded in time.
 */

const SEED = 12_012;
const CASES_PER_OPERATION = 40;
const INT4_MAX = 2_147_483_647;

interface Schema {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  $ref?: string;
}

interface Parameter {
  in: 'path' | 'query' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  schema: Schema;
}

interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body: Schema | undefined;
}

/** One bad request: a value placed into one location, written raw when it goes into a URL. */
interface BadCase {
  location: 'path' | 'query' | 'body';
  name: string;
  /** For path and query: the exact text put into the URL (already percent-encoded or not). */
  raw?: string;
  /** For body: the JSON value. */
  value?: unknown;
}

let server: TestServer;
let db: Db;
let operations: Operation[];
const tokens: Record<'advertiser' | 'publisher' | 'operator', TestClient> = {} as never;
const ids: Record<string, number> = {};

/** What the server logged at error level or above: a refused request is the client's error, never one of these. */
const errorLines: { level: number; msg: string; reqId?: string }[] = [];

/** A real object's id for a path parameter, from the collection the parameter follows. */
function pathId(path: string, name: string): number {
  if (name === 'campaign') return ids.campaign ?? 1;
  const segment = path.split('/').at(path.split('/').indexOf(`{${name}}`) - 1) ?? '';
  const bySegment: Record<string, number | undefined> = {
    users: path.startsWith('/api/advertiser') ? ids.client : ids.advertiser,
    campaigns: ids.campaign,
    offers: ids.offer,
    sites: ids.site,
    blocks: ids.block,
    payouts: ids.payout,
    payment: ids.payout,
    categories: 2,
    outbox: 1,
    tokens: 1,
  };
  return bySegment[segment] ?? 1;
}

/** A value the schema accepts, so that only the one bad value decides the answer. */
function validValue(schema: Schema, name: string): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const options = schema.anyOf ?? schema.oneOf;
  if (options?.[0]) return validValue(options[0], name);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' || type === 'number') {
    if (/^(category_id|parentId)$/.test(name)) return 2;
    if (name === 'campaignId') return ids.campaign;
    if (name === 'userId') return ids.publisher;
    if (name === 'amount' || name === 'balance') return 0.01;
    return Math.max(schema.minimum ?? 1, schema.exclusiveMinimum === undefined ? 1 : schema.exclusiveMinimum + 1);
  }
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  if (schema.format === 'email') return `fuzz${name}@example.test`;
  if (schema.format === 'uri' || /url/i.test(name)) return 'https://fuzz.example.test/';
  if (schema.format === 'date') return '2026-03-10';
  return 'Fuzz';
}

function typesOf(schema: Schema): string[] {
  const options = schema.anyOf ?? schema.oneOf;
  if (options) return options.flatMap(typesOf);
  if (schema.enum || schema.const !== undefined) return ['enum'];
  return [schema.type ?? 'any'].flat();
}

/** Percent-encodes as browsers do; a lone surrogate becomes its (invalid) three-byte UTF-8 form. */
function percentEncode(text: string): string {
  let encoded = '';
  for (const character of text) {
    const code = character.charCodeAt(0);
    if (character.length === 1 && code >= 0xd800 && code <= 0xdfff) {
      encoded += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((byte) => `%${byte.toString(16).toUpperCase()}`)
        .join('');
    } else {
      encoded += encodeURIComponent(character).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16)}`);
    }
  }
  return encoded;
}

/** Bad values for one field, drawn from what its schema declares. */
function badValues(schema: Schema): fc.Arbitrary<unknown> {
  const types = typesOf(schema);
  const numeric = types.includes('integer') || types.includes('number');
  const textual = types.includes('string') || types.includes('enum');
  const candidates: fc.Arbitrary<unknown>[] = [
    fc.constantFrom(types.includes('null') ? 'a\u0000' : null, {}, [[[[[[[[[[[]]]]]]]]]]], { a: { b: { c: { d: { e: {} } } } } }),
    fc.constantFrom('a\u0000b', '\u0000', '\uD800', 'x\uDC00y', 'x'.repeat(70_000)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map((text) => `${text}\u0000`),
  ];
  if (numeric) {
    const bounds = [schema.minimum, schema.maximum].filter((value): value is number => value !== undefined);
    candidates.push(
      fc.constantFrom(
        'Infinity',
        '-Infinity',
        'NaN',
        '1e99',
        '1e2',
        '99999999999999999999',
        1e99,
        -1e99,
        2 ** 31,
        2 ** 53 + 1,
        -(2 ** 31) - 1,
        // A fraction is bad only where the schema wants an integer.
        ...(types.includes('number') ? [] : [1.5]),
        '0x10',
        ' 1',
        '',
        'abc',
        true,
        ...bounds
          .flatMap((bound) => [bound - 1, bound + 1, bound - 0.5, bound + 0.5])
          .filter((value) => {
            const inRange =
              (schema.minimum === undefined || value >= schema.minimum) &&
              (schema.maximum === undefined || value <= schema.maximum);
            return !inRange || (types.includes('integer') && !types.includes('number') && !Number.isInteger(value));
          }),
      ),
      fc
        .oneof(
          fc.integer({ min: INT4_MAX, max: Number.MAX_SAFE_INTEGER }),
          fc.integer({ max: -(2 ** 31) - 1, min: Number.MIN_SAFE_INTEGER }),
        )
        .map((value) => (types.includes('integer') ? value + 1 : value * 1e6)),
      fc
        .double({ noDefaultInfinity: false })
        .filter((value) => !Number.isFinite(value) || Math.abs(value) > 1e12)
        .map(String),
    );
  }
  if (textual && schema.maxLength !== undefined) candidates.push(fc.constant('y'.repeat(schema.maxLength + 1)));
  if (types.includes('boolean')) candidates.push(fc.constantFrom('maybe', 2, -1, 'Infinity'));
  return fc.oneof(...candidates);
}

/** Bad texts for a URL position: the same values, plus malformed percent-encodings. */
function badUrlTexts(schema: Schema): fc.Arbitrary<string> {
  return fc.oneof(
    badValues(schema)
      .filter((value) => value === null || typeof value !== 'object')
      .map((value) => percentEncode(String(value)).slice(0, 9_000)),
    fc.constantFrom('%', '%zz', '%00', '%E0%A4%A', '%ED%A0%80', '%C0%80', '%FF', '9'.repeat(120)),
  );
}

function caseArbitrary(operation: Operation): fc.Arbitrary<BadCase> | undefined {
  const choices: fc.Arbitrary<BadCase>[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    const location = parameter.in;
    if (parameter.schema.type === 'object') {
      for (const [inner, schema] of Object.entries(parameter.schema.properties ?? {})) {
        choices.push(badUrlTexts(schema).map((raw) => ({ location, name: `${parameter.name}[${inner}]`, raw })));
      }
      continue;
    }
    choices.push(badUrlTexts(parameter.schema).map((raw) => ({ location, name: parameter.name, raw })));
  }
  for (const [name, schema] of Object.entries(operation.body?.properties ?? {})) {
    choices.push(badValues(schema).map((value) => ({ location: 'body' as const, name, value })));
  }
  return choices.length > 0 ? fc.oneof(...choices) : undefined;
}

function clientFor(path: string): TestClient {
  if (path.startsWith('/api/advertiser') || path === '/api/me') return tokens.advertiser;
  if (path.startsWith('/api/webmaster')) return tokens.publisher;
  return tokens.operator;
}

function buildRequest(operation: Operation, bad: BadCase): { url: string; body: unknown } {
  let url = operation.path;
  for (const parameter of operation.parameters.filter((entry) => entry.in === 'path')) {
    const text = bad.location === 'path' && bad.name === parameter.name ? bad.raw : String(validPathValue(operation, parameter));
    url = url.replace(`{${parameter.name}}`, text ?? '');
  }
  const query: string[] = [];
  for (const parameter of operation.parameters.filter((entry) => entry.in === 'query' && entry.required)) {
    if (bad.location === 'query' && bad.name === parameter.name) continue;
    query.push(`${parameter.name}=${percentEncode(String(validValue(parameter.schema, parameter.name)))}`);
  }
  if (bad.location === 'query') query.push(`${bad.name.replace('[', '%5B').replace(']', '%5D')}=${bad.raw}`);
  if (query.length > 0) url += `?${query.join('&')}`;
  let body: unknown;
  if (operation.body) {
    const fields: Record<string, unknown> = {};
    for (const name of operation.body.required ?? []) {
      const schema = operation.body.properties?.[name];
      if (schema) fields[name] = validValue(schema, name);
    }
    if (bad.location === 'body') fields[bad.name] = bad.value;
    body = fields;
  }
  return { url, body };
}

function validPathValue(operation: Operation, parameter: Parameter): string | number {
  const type = typesOf(parameter.schema)[0];
  if (type === 'integer') return pathId(operation.path, parameter.name);
  if (parameter.name === 'type') return 'desktop';
  if (parameter.name === 'id') return String(ids.site);
  if (parameter.name === 'hash') return '0'.repeat(64);
  if (parameter.name === 'size') return '328x328.jpg';
  return 'fuzz';
}

/** Every table's rows, hashed: any write at all changes it. */
async function fingerprint(): Promise<string> {
  const tables = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`.execute(db);
  // One query for all tables: a query per table made the fingerprints half of this file's time.
  const digests = tables.rows.map(({ name }) => {
    // A token's last use is bookkeeping of the read itself, not a write the request asked for.
    const rows =
      name === 'api_tokens' ? sql`SELECT id, account_id, revoked_at FROM api_tokens` : sql`SELECT * FROM ${sql.table(name)}`;
    return sql`
      SELECT ${name}::text AS name, count(*)::text || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') AS digest
      FROM (${rows}) t`;
  });
  const result = await sql<{ name: string; digest: string }>`
    SELECT name, digest FROM (${sql.join(digests, sql` UNION ALL `)}) tables ORDER BY name`.execute(db);
  return result.rows.map((row) => `${row.name}=${row.digest}`).join('\n');
}

interface Finding {
  operation: string;
  case: string;
  problem: string;
}

function checkEnvelope(response: TestResponse): string | undefined {
  if (response.status >= 500) return `answered ${response.status}: ${response.text.slice(0, 200)}`;
  if (response.status < 400) return undefined;
  const type = response.header('content-type') ?? '';
  if (type.startsWith('image/gif')) return undefined;
  // A click link that leads nowhere is a page for the visitor's browser (docs/serving.md).
  if (response.status === 404 && type.startsWith('text/html') && /<title>Link not found<\/title>/.test(response.text)) {
    return undefined;
  }
  let body: { name?: unknown; message?: unknown; code?: unknown; status?: unknown };
  try {
    body = response.json();
  } catch {
    return `a ${response.status} that is not JSON: ${response.text.slice(0, 200)}`;
  }
  const envelope = typeof body.name === 'string' && typeof body.message === 'string' && typeof body.code === 'number';
  if (!envelope || body.status !== response.status)
    return `a ${response.status} outside the envelope: ${response.text.slice(0, 200)}`;
  return undefined;
}

function describeCase(bad: BadCase): string {
  const shown = bad.location === 'body' ? JSON.stringify(bad.value) : bad.raw;
  return `${bad.location} ${bad.name}=${String(shown).slice(0, 80)}`;
}

/** The query parameters of an operation that take a day, with how to write them in a URL. */
function dayParameters(operation: Operation): string[] {
  const names: string[] = [];
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'query') continue;
    if (parameter.schema.type === 'object') {
      for (const [inner, schema] of Object.entries(parameter.schema.properties ?? {})) {
        if (/date|day/i.test(inner) || schema.format === 'date') names.push(`${parameter.name}%5B${inner}%5D`);
      }
    } else if (/^date|date$|^day/i.test(parameter.name) || parameter.schema.format === 'date') {
      names.push(parameter.name);
    }
  }
  return names;
}

describe('every operation of the OpenAPI document, given bad values', () => {
  before(async () => {
    const stream = {
      write: (line: string) => {
        const entry = JSON.parse(line);
        if (entry.level >= 50) errorLines.push(entry);
      },
    };
    server = await startTestServer({ logger: { level: 'error', stream } });
    db = server.server.context.db;
    tokens.operator = server.operator;
    const advertiser = await server.createAccount('advertiser');
    const publisher = await server.createAccount('publisher');
    tokens.advertiser = advertiser.client;
    tokens.publisher = publisher.client;
    await server.operator.post(`/api/admin/users/${advertiser.id}/balance`, { amount: 100, comment: 'fuzz' });
    const client = await advertiser.client.post('/api/advertiser/users', {
      user: 'fuzzclient',
      email: 'fuzzclient@example.test',
    });
    const campaign = await insertCampaign(db, { advertiserId: advertiser.id });
    // Switched off: the teasers route takes any consent text, and a block that served would count
    // its teasers (a write of serving, flushed later) whatever the fuzz sent.
    const offer = await insertOffer(db, { campaignId: campaign.id });
    await db.updateTable('offers').set({ active: false }).where('id', '=', offer.id).execute();
    const site = await insertSite(db, { publisherId: publisher.id });
    const block = await insertBlock(db, { siteId: site.id });
    const payout = await server.operator.post('/api/admin/payouts', { userId: publisher.id, amount: 0.01, wallet: 'W1' });
    Object.assign(ids, {
      advertiser: advertiser.id,
      publisher: publisher.id,
      client: client.json<{ id: number }>().id,
      campaign: campaign.id,
      offer: offer.id,
      site: site.id,
      block: block.id,
      payout: payout.status === 201 ? payout.json<{ id: number }>().id : 1,
    });
    // The first conversion lookup creates the platform's margin account once; not a write of the fuzz.
    await server.anonymous.get('/api/serve/conversion?click_id=none&goal=purchase&key=none');
    const document = (await server.anonymous.get('/api/openapi.json')).json<{
      paths: Record<
        string,
        Record<string, { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> } }>
      >;
    }>();
    operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: operation.requestBody ? Object.values(operation.requestBody.content)[0]?.schema : undefined,
      })),
    );
  });

  after(async () => {
    await server.close();
  });

  test('no operation answers a bad value with a 5xx, a body outside the envelope, or a write', async () => {
    assert.ok(operations.length >= 60, `the OpenAPI document lists ${operations.length} operations`);
    const findings: Finding[] = [];
    let requests = 0;
    for (const [index, operation] of operations.entries()) {
      const arbitrary = caseArbitrary(operation);
      if (arbitrary === undefined) continue;
      const cases = fc.sample(arbitrary, { seed: SEED + index, numRuns: CASES_PER_OPERATION });
      const before = await fingerprint();
      const name = `${operation.method} ${operation.path}`;
      for (const bad of cases) {
        const { url, body } = buildRequest(operation, bad);
        const response = await clientFor(operation.path).request(operation.method, url, body === undefined ? {} : { body });
        requests += 1;
        const problem = checkEnvelope(response);
        if (problem) findings.push({ operation: name, case: describeCase(bad), problem });
        if (response.status < 300 && operation.method !== 'GET') {
          findings.push({ operation: name, case: describeCase(bad), problem: `accepted with ${response.status}` });
        }
      }
      const afterwards = await fingerprint();
      if (afterwards !== before) {
        const changed = afterwards.split('\n').filter((line) => !before.includes(line));
        findings.push({ operation: name, case: 'the batch', problem: `the database changed: ${changed.join(', ')}` });
      }
    }
    if (process.env.ROBUSTNESS_REPORT) {
      // A summary for people reading a run: findings grouped by operation and kind, with one example.
      const groups = new Map<string, { count: number; example: string }>();
      for (const finding of findings) {
        const key = `${finding.operation} ${finding.problem.slice(0, 24)}`;
        const group = groups.get(key) ?? { count: 0, example: `${finding.case} -> ${finding.problem.slice(0, 160)}` };
        group.count += 1;
        groups.set(key, group);
      }
      console.log(`${requests} requests, ${findings.length} findings`);
      for (const [key, group] of groups) console.log(`${group.count}\t${key}\t${group.example}`);
    }
    assert.deepEqual(findings.slice(0, 20), [], `${findings.length} findings over ${requests} requests`);
    assert.deepEqual(
      errorLines.map((line) => line.msg),
      [],
      'bad input is logged as a client error, never at error level',
    );
  });

  test('repeated backups at once are all answered, none a 5xx', async () => {
    const answers = await Promise.all(Array.from({ length: 3 }, () => server.operator.post('/api/admin/backup')));
    const expected = server.server.context.database.backup === undefined ? 409 : 200;
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [expected, expected, expected],
    );
  });

  test('no operation answers a valid but extreme day with a 5xx', async () => {
    const findings: string[] = [];
    let requests = 0;
    const extremes = ['9999-12-31', '0100-01-01', '1970-01-01'];
    for (const operation of operations) {
      if (operation.method !== 'GET') continue;
      const names = dayParameters(operation);
      if (names.length === 0) continue;
      const base = buildRequest(operation, { location: 'query', name: '__none', raw: '' }).url.replace(/[?&]__none=$/, '');
      const combinations = [
        ...names.flatMap((name) => extremes.map((day) => [`${name}=${day}`])),
        names.map((name) => `${name}=${/from|start/i.test(name) ? extremes[1] : extremes[0]}`),
      ];
      for (const combination of combinations) {
        const url = `${base}${base.includes('?') ? '&' : '?'}${combination.join('&')}`;
        const response = await clientFor(operation.path).get(url);
        requests += 1;
        const problem = checkEnvelope(response);
        if (problem) findings.push(`${operation.method} ${url}: ${problem}`);
      }
    }
    assert.ok(requests > 20, `${requests} requests`);
    assert.deepEqual(findings, []);
  });
});
