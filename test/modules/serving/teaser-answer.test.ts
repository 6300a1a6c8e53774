import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import Fastify from 'fastify';
import type { AdEntry } from '../../../src/modules/serving/snapshot/snapshot.ts';
import { TeaserAnswerWriter, TeasersAnswerSchema, teaserAnswer } from '../../../src/modules/serving/teaser-answer.ts';
import type { ServedTeaser } from '../../../src/modules/serving/tracking/tracker.ts';

function ad(offerId: number, fields: Partial<AdEntry>): AdEntry {
  return {
    offerId,
    title: 'Kettle',
    description: 'Boils water',
    priceText: '19.90',
    domain: 'shop.example',
    image: 'abc123',
    ...fields,
  } as AdEntry;
}

describe('the teasers answer written as text', () => {
  const ads = [
    ad(1, {}),
    ad(2, { title: 'Say "hi" \\ o/', description: 'Line\nbreak\ttab \u2028 </script> \u0001', image: null }),
    ad(4_000_000_001, { title: 'Ünïcödé 中文 😀', priceText: '1 000 ₽', domain: 'xn--e1afmkfd.example' }),
  ];
  const served = (offset: number): ServedTeaser[] =>
    ads.map((entry, index) => ({ ad: entry, clickToken: `click-${offset + index}_A-z`, viewToken: `view-${offset + index}` }));

  const design = JSON.stringify({ columns: 3, rows: 2, heading: 'You "may" like', textColor: '#112233', titleSize: 14 });
  const cases: [name: string, base: string, teasers: ServedTeaser[], designJson?: string][] = [
    ['no teasers', 'https://ads.example/api', []],
    ['teasers with text that needs escaping', 'https://ads.example/api', served(0)],
    ['the same ads again (their cached parts)', 'https://ads.example/api', served(10)],
    ['another base URL (a Host header with a quote)', 'https://ads"x.example/api', served(20)],
    ['the first base URL again', 'https://ads.example/api', served(30)],
    ['a block with a design', 'https://ads.example/api', served(40), design],
  ];
  const writer = new TeaserAnswerWriter('EUR');
  for (const [name, base, teasers, designJson] of cases) {
    it(`is the text of the object answer: ${name}`, () => {
      const unpersonalised = writer.write(77, 'Sponsored', base, teasers, false, designJson);
      assert.equal(unpersonalised, JSON.stringify(teaserAnswer(77, 'Sponsored', 'EUR', base, teasers, false, designJson)));
      const text = writer.write(77, 'Sponsored', base, teasers, true, designJson);
      assert.equal(text, JSON.stringify(teaserAnswer(77, 'Sponsored', 'EUR', base, teasers, true, designJson)));
    });
  }

  it('carries the wide pictures in a wide block, the same text as the object answer', () => {
    const wideAds = [ad(5, { image: 'square5', wideImage: 'wide5' }), ad(6, { image: 'square6', wideImage: 'square6' })];
    const teasers = wideAds.map((entry, index) => ({ ad: entry, clickToken: `c${index}`, viewToken: `v${index}` }));
    const wideDesign = JSON.stringify({ imageShape: 'wide' });
    for (const wide of [false, true, false]) {
      const text = writer.write(77, 'Sponsored', 'https://ads.example/api', teasers, true, wideDesign, wide);
      assert.equal(
        text,
        JSON.stringify(teaserAnswer(77, 'Sponsored', 'EUR', 'https://ads.example/api', teasers, true, wideDesign, wide)),
      );
      const images = (JSON.parse(text) as { teasers: { image: string }[] }).teasers.map((teaser) => teaser.image);
      assert.deepEqual(
        images,
        wide
          ? ['https://ads.example/api/img/wide5/492x328.jpg', 'https://ads.example/api/img/square6/492x328.jpg']
          : ['https://ads.example/api/img/square5/328x328.jpg', 'https://ads.example/api/img/square6/328x328.jpg'],
      );
    }
  });

  it('is what the route schema accepts and its serializer writes, fields in schema order', async () => {
    // The schema's own serializer, as the teasers route compiles it for the XML-less JSON path.
    const app = Fastify();
    let answer: ReturnType<typeof teaserAnswer> | undefined;
    app.get('/', { schema: { response: { 200: TeasersAnswerSchema } } }, async () => answer);
    try {
      const teaserKeys = Object.keys(TeasersAnswerSchema.properties.teasers.items.properties);
      for (const [name, base, teasers, designJson] of cases) {
        answer = teaserAnswer(77, 'Sponsored', 'EUR', base, teasers, true, designJson);
        const text = writer.write(77, 'Sponsored', base, teasers, true, designJson);
        const parsed = JSON.parse(text);
        assert.ok(
          Value.Check(TeasersAnswerSchema, parsed),
          `${name}: ${[...Value.Errors(TeasersAnswerSchema, parsed)].map((error) => error.message)}`,
        );
        const keys = Object.keys(TeasersAnswerSchema.properties).filter((key) => key !== 'design' || designJson !== undefined);
        assert.deepEqual(Object.keys(parsed), keys, name);
        for (const teaser of parsed.teasers) assert.deepEqual(Object.keys(teaser), teaserKeys, name);
        const serialized = await app.inject({ method: 'GET', url: '/' });
        assert.equal(text, serialized.body, name);
      }
    } finally {
      await app.close();
    }
  });
});
