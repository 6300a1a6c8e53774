import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { freePort } from '../helpers/network.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createWorld, DESKTOP_UA, type World } from '../helpers/serving.ts';

/**
 * The OpenAPI document checked by an independent validator: Stoplight Prism (npm
 * @stoplight/prism-cli) runs as a real process in proxy mode in front of the real server, and every
 * operation of the document is called through it, in JSON and in XML, with the caller its entry
 * point expects. Prism validates each answer (status, Content-Type, headers, body) against the
 * document and names every disagreement in its `sl-violations` header; any response violation
 * fails the test. Requests are built from the document itself, so a new route is exercised the
 * day it is added.
 */

/** The headers the conventions set, which the document must declare where they are sent. */
const CONVENTION_HEADERS = [
  'etag',
  'link',
  'x-pagination-total-count',
  'x-pagination-page-count',
  'x-pagination-current-page',
  'x-pagination-per-page',
  'x-rate-limit-limit',
  'x-rate-limit-remaining',
  'x-rate-limit-reset',
  'location',
  'set-cookie',
  'content-disposition',
  'retry-after',
];

const UNSERVED_TYPE = 'application/x-nothing';

const xmlParser = new XMLParser({ ignoreAttributes: true });

const PRISM = path.join(import.meta.dirname, '..', '..', 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type Method = (typeof METHODS)[number];

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  format?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
}

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

interface Operation {
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}

interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/** A value the schema accepts, the simplest one: what a careful client would send. */
function sampleOf(schema: Schema | undefined, name: string): unknown {
  if (schema === undefined) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0];
  const option = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (option) return sampleOf(option, name);
  switch ([schema.type].flat()[0]) {
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, (schema.exclusiveMinimum ?? 0) + 1);
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleOf(schema.items, name));
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const key of schema.required ?? []) value[key] = sampleOf(schema.properties?.[key], key);
      return value;
    }
    default:
      return stringSample(schema, name);
  }
}

function stringSample(schema: Schema, name: string): string {
  if (schema.format === 'email' || name === 'email') return `prism${Date.now()}@example.test`;
  if (schema.format === 'date') return '2026-03-10';
  if (schema.format === 'date-time') return '2026-03-10T12:00:00Z';
  if (schema.format === 'uri' || name.includes('url')) return 'https://example.test/page';
  const text = name === 'password' ? 'a long enough password' : 'prism';
  return text.padEnd(schema.minLength ?? 0, 'x').slice(0, schema.maxLength ?? 1000);
}

describe('the OpenAPI document agrees with the server, as Stoplight Prism checks it', () => {
  let server: TestServer;
  let world: World;
  let prism: ChildProcess;
  let prismUrl: string;
  let directory: string;
  let document: { paths: Record<string, Partial<Record<Method, Operation>>> };
  let prismLog = '';

  before(async () => {
    server = await startTestServer();
    world = await createWorld(server);
    document = (await server.anonymous.get('/api/openapi.json')).json();
    directory = mkdtempSync(path.join(os.tmpdir(), 'nativa-prism-'));
    const file = path.join(directory, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const port = await freePort();
    prismUrl = `http://127.0.0.1:${port}`;
    prism = spawn(
      process.execPath,
      [PRISM, 'proxy', file, server.url, '--host', '127.0.0.1', '--port', String(port), '--errors', 'false', '-v', 'warn'],
      // The test server's certificate is its own: Prism (and only Prism) is told to trust it.
      { env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0', NODE_NO_WARNINGS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prism.stdout?.on('data', (chunk: Buffer) => {
      prismLog += chunk.toString();
    });
    prism.stderr?.on('data', (chunk: Buffer) => {
      prismLog += chunk.toString();
    });
    await waitForPrism(prismUrl, () => prismLog);
  });

  after(async () => {
    prism?.kill('SIGTERM');
    await server?.close();
    if (directory) rmSync(directory, { recursive: true, force: true });
  });

  /** Which caller each entry point expects; the public routes get none. */
  function tokenFor(route: string): string | undefined {
    if (route.startsWith('/api/advertiser/')) return world.advertiser.defaultToken;
    if (route.startsWith('/api/webmaster/')) return world.publisher.defaultToken;
    if (route.startsWith('/api/admin/') || route === '/api/metrics') return server.operator.defaultToken;
    return world.advertiser.defaultToken;
  }

  /** Path parameters by name: objects of the world where one exists, else an id nothing has (a 404 to check). */
  function pathValue(name: string, route: string): string {
    if (name === 'blockId') return String(world.blockId);
    if (name === 'campaign') return String(world.campaignIds[0]);
    if (name === 'id' && route.startsWith('/api/advertiser/campaigns')) return String(world.campaignIds[0]);
    if (name === 'id' && route.startsWith('/api/webmaster/sites')) return String(world.siteId);
    if (name === 'id' && route.startsWith('/api/webmaster/blocks')) return String(world.blockId);
    if (name === 'type') return 'teaser';
    if (name === 'size') return '100x100';
    return '999999';
  }

  interface Probe {
    accept: string;
    /** A query parameter set to a value of the wrong type: the 422 path. */
    badQuery?: string;
  }

  /** Calls the operation through Prism; returns every disagreement with the document. */
  async function call(method: Method, route: string, operation: Operation, probe: Probe): Promise<string[]> {
    const parameters = operation.parameters ?? [];
    const url = new URL(
      route.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(pathValue(name, route))),
      prismUrl,
    );
    for (const parameter of parameters) {
      if (parameter.in === 'query' && parameter.required) {
        url.searchParams.set(parameter.name, String(sampleOf(parameter.schema, parameter.name)));
      }
    }
    if (probe.badQuery !== undefined) url.searchParams.set(probe.badQuery, 'not-a-number');
    const headers: Record<string, string> = { Accept: probe.accept, 'User-Agent': DESKTOP_UA };
    const token = tokenFor(route);
    if (token !== undefined) headers['Auth-Token'] = token;
    let body: string | undefined;
    const jsonBody = operation.requestBody?.content['application/json'];
    if (jsonBody !== undefined && method !== 'get' && method !== 'delete') {
      body = JSON.stringify(sampleOf(jsonBody.schema, 'body'));
      headers['Content-Type'] = 'application/json';
    }
    const response = await fetch(url, { method: method.toUpperCase(), headers, body, redirect: 'manual' });
    const text = await response.text();
    const failures: string[] = [];
    const header = response.headers.get('sl-violations');
    if (header?.startsWith('Too many violations!')) failures.push(header.slice(0, 500));
    else if (header !== null) {
      for (const violation of JSON.parse(header) as Violation[]) {
        if (violation.location[0] === 'response') failures.push(`${violation.location.join('.')} ${violation.message}`);
      }
    }
    // Prism checks the headers a response declares, not the ones it leaves out: the conventions'
    // headers an answer carries must be declared for its status.
    const declared = operation.responses[String(response.status)] as { headers?: Record<string, unknown>; $ref?: string };
    const declaredHeaders = new Set(Object.keys(resolve(declared)?.headers ?? {}).map((name) => name.toLowerCase()));
    for (const name of CONVENTION_HEADERS) {
      if (response.headers.has(name) && !declaredHeaders.has(name))
        failures.push(`header ${name} is not declared for ${response.status}`);
    }
    // Each route negotiates among the types it produces: asking for one of them is never a 415.
    if (response.status === 415 && probe.accept !== UNSERVED_TYPE) failures.push('refused a type the operation declares');
    const type = response.headers.get('content-type') ?? '';
    if (type.startsWith('application/xml') && text !== '') {
      const root = Object.keys(xmlParser.parse(text)).filter((key) => key !== '?xml');
      if (root.join() !== 'response') failures.push(`XML root element ${root.join()}, not response`);
    }
    return failures.map(
      (failure) =>
        `${method.toUpperCase()} ${route} (${probe.accept}${probe.badQuery ? `, bad ${probe.badQuery}` : ''}) ${response.status}: ${failure}`,
    );
  }

  function resolve(response: { headers?: Record<string, unknown>; $ref?: string } | undefined) {
    if (response?.$ref === undefined) return response;
    const name = response.$ref.split('/').pop() ?? '';
    return (document as unknown as { components: { responses: Record<string, { headers?: Record<string, unknown> }> } })
      .components.responses[name];
  }

  it('finds no answer of any operation that breaks the document, in JSON, XML and its own types', {
    timeout: 120_000,
  }, async () => {
    const operations = Object.entries(document.paths).flatMap(([route, item]) =>
      METHODS.filter((method) => item[method] !== undefined).map((method) => ({
        route,
        method,
        operation: item[method] as Operation,
      })),
    );
    assert.ok(operations.length > 100, `only ${operations.length} operations`);
    // Reads first, then writes, deletions last: a deletion must not take away what a later call reads.
    const order: Record<Method, number> = { get: 0, post: 1, put: 1, patch: 1, delete: 2 };
    operations.sort((a, b) => order[a.method] - order[b.method]);
    const failures: string[] = [];
    const exercised = new Set<string>();
    for (const { route, method, operation } of operations) {
      const produces = new Set(
        Object.values(operation.responses).flatMap((response) =>
          Object.keys(response.content ?? {}).map((type) => type.split(';')[0] ?? ''),
        ),
      );
      // Every JSON answer is also served as XML (the server's convention), declared or not: ask for both.
      const probes: Probe[] = [...produces].map((accept) => ({ accept }));
      if (produces.has('application/json') && !produces.has('application/xml')) probes.push({ accept: 'application/xml' });
      if (probes.length === 0) probes.push({ accept: '*/*' });
      // A type no route serves: the 415 path (or the page the route answers anyway).
      probes.push({ accept: UNSERVED_TYPE });
      const numeric = (operation.parameters ?? []).find(
        (parameter) => parameter.in === 'query' && !parameter.required && [parameter.schema?.type].flat()[0] === 'integer',
      );
      if (numeric !== undefined) probes.push({ accept: 'application/json', badQuery: numeric.name });
      for (const probe of probes) failures.push(...(await call(method, route, operation, probe)));
      exercised.add(`${method} ${route}`);
    }
    assert.equal(exercised.size, operations.length);
    assert.deepEqual(failures, [], `${failures.length} violations:\n${failures.join('\n')}`);
  });
});

async function waitForPrism(url: string, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      await fetch(new URL('/api/health', url));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`Prism did not start within a minute:\n${log()}`);
}
