import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../src/errors.ts';
import { readExpand } from '../../src/http/expand.ts';
import { parseQueryString } from '../../src/http/input.ts';
import { negotiateFormat } from '../../src/http/negotiation.ts';
import { toXml } from '../../src/http/xml.ts';

describe('negotiateFormat', () => {
  const cases: [string | undefined, 'json' | 'xml' | 415][] = [
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/*', 'json'],
    ['application/json', 'json'],
    ['APPLICATION/JSON', 'json'],
    ['application/xml', 'xml'],
    ['text/xml', 'xml'],
    ['application/xml; version=1', 'xml'],
    ['application/xml;version=1.0', 'xml'],
    ['application/json; version="1"', 'json'],
    ['application/json; charset=utf-8; version=1', 'json'],
    ['application/xml;q=0.5, application/json', 'json'],
    ['application/json;q=0.1, application/xml;q=0.2', 'xml'],
    ['text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8', 'xml'],
    ['text/html, */*;q=0.1', 'json'],
    ['application/xml;q=0, application/json', 'json'],
    ['application/json; version=2', 415],
    ['application/xml; version=1.1', 415],
    ['application/json; version=', 415],
    ['text/html', 415],
    ['image/png, text/plain;q=0.5', 415],
    ['application/json;q=0', 415],
    ['garbage', 415],
  ];
  for (const [accept, expected] of cases) {
    it(`${accept === undefined ? '(no header)' : JSON.stringify(accept)} → ${expected}`, () => {
      if (expected === 415) {
        assert.throws(
          () => negotiateFormat(accept),
          (error: unknown) => error instanceof DomainError && error.code === 'unsupported_media_type',
        );
        // The answer is cached per header value: the second time must fail the same way.
        assert.throws(() => negotiateFormat(accept), DomainError);
      } else {
        assert.equal(negotiateFormat(accept), expected);
        assert.equal(negotiateFormat(accept), expected);
      }
    });
  }
});

describe('toXml', () => {
  const prolog = '<?xml version="1.0" encoding="UTF-8"?>\n';
  const cases: [string, unknown, string][] = [
    ['an object', { id: 1, title: 'A' }, '<response><id>1</id><title>A</title></response>'],
    ['a list of items', [{ id: 1 }, { id: 2 }], '<response><item><id>1</id></item><item><id>2</id></item></response>'],
    ['an empty list', [], '<response></response>'],
    ['booleans', { active: true, archived: false }, '<response><active>true</active><archived>false</archived></response>'],
    ['null as an empty element', { parentId: null }, '<response><parentId></parentId></response>'],
    ['undefined left out', { a: undefined, b: 1 }, '<response><b>1</b></response>'],
    [
      'nested objects',
      { img: { url: 'u', sizes: ['1x1'] } },
      '<response><img><url>u</url><sizes><item>1x1</item></sizes></img></response>',
    ],
    [
      'escaped text',
      { t: `<a href="x">&'</a>` },
      '<response><t>&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;</t></response>',
    ],
    ['control characters dropped', { t: 'a\u0000b\u0007c\td' }, '<response><t>abc\td</t></response>'],
    ['names that are not XML names become item', { '1st': 1, 'a b': 2 }, '<response><item>1</item><item>2</item></response>'],
    ['numbers as written', { money: 12.3456, n: -1 }, '<response><money>12.3456</money><n>-1</n></response>'],
    ['dates as ISO', { d: new Date(Date.UTC(2026, 0, 2)) }, '<response><d>2026-01-02T00:00:00.000Z</d></response>'],
    ['unicode', { t: 'Привет ü 😀' }, '<response><t>Привет ü 😀</t></response>'],
    ['a scalar', 'ok', '<response>ok</response>'],
  ];
  for (const [name, value, expected] of cases) {
    it(name, () => {
      assert.equal(toXml(value), `${prolog}${expected}\n`);
    });
  }
});

describe('parseQueryString', () => {
  const cases: [string, Record<string, unknown>][] = [
    ['', {}],
    ['a=1', { a: '1' }],
    ['a=1&b=two', { a: '1', b: 'two' }],
    ['a=1&a=2', { a: '2' }],
    ['filter[id]=1,2', { filter: { id: '1,2' } }],
    ['filter[id]=1&filter[date]=2026-01-01', { filter: { id: '1', date: '2026-01-01' } }],
    ['filter%5Bid%5D=7', { filter: { id: '7' } }],
    ['per-page=5&page=2', { 'per-page': '5', page: '2' }],
    ['q=a+b%20c', { q: 'a b c' }],
    ["name=O'Brien%3B--", { name: "O'Brien;--" }],
    ['flag', { flag: '' }],
    ['[x]=1', { '[x]': '1' }],
    ['a=1&a[b]=2', { a: { b: '2' } }],
    ['__proto__[polluted]=1&a=1', { a: '1' }],
    ['filter[__proto__]=1&b=2', { b: '2' }],
  ];
  for (const [text, expected] of cases) {
    it(JSON.stringify(text), () => {
      const parsed = parseQueryString(text);
      assert.deepEqual(JSON.parse(JSON.stringify(parsed)), JSON.parse(JSON.stringify(expected)));
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  }
});

describe('readExpand', () => {
  const cases: [unknown, string[]][] = [
    [undefined, []],
    ['offers', ['offers']],
    ['offers, blocks', ['offers', 'blocks']],
    ['campaigns,secrets', ['campaigns']],
    ['', []],
    [['offers'], []],
  ];
  for (const [expand, expected] of cases) {
    it(`expand=${JSON.stringify(expand)} → ${expected.join(',') || '(nothing)'}`, () => {
      const request = { query: { expand } } as unknown as FastifyRequest;
      assert.deepEqual([...readExpand(request, ['campaigns', 'offers', 'blocks'])].sort(), [...expected].sort());
    });
  }
});
