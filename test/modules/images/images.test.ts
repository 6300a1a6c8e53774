import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { IMAGE_SIZES } from '../../../src/modules/images/image-store.ts';
import { createCampaign, dataUri, fetchBytes, fieldsOf, imageBytes, offerFields } from '../../helpers/advertiser.ts';
import type { TestClient } from '../../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

describe('ad images', () => {
  let server: TestServer;
  let client: TestClient;
  let campaignId: number;

  before(async () => {
    server = await startTestServer();
    client = (await server.createAccount('advertiser')).client;
    campaignId = await createCampaign(client);
  });
  after(() => server.close());

  const post = async (images: { rectangle?: string; square?: string }) =>
    client.post('/api/advertiser/offers', await offerFields(campaignId, images));

  it('accepts a real PNG and a real JPEG and serves every allowed size as a JPEG of exactly that size', async () => {
    const response = await post({
      rectangle: dataUri('png', await imageBytes('png', 900, 600)),
      square: dataUri('jpeg', await imageBytes('jpeg', 500, 520)),
    });
    assert.equal(response.status, 201, response.text);
    const { img, img_wide: imgWide } = response.json();
    for (const [image, sizes] of [
      [img, IMAGE_SIZES.square],
      [imgWide, IMAGE_SIZES.rectangle],
    ] as const) {
      assert.equal(image.allowedSizes, sizes.map((size) => `${size.width}x${size.height}`).join(','));
      for (const size of sizes) {
        const url = image.pattern.replace('{width}', String(size.width)).replace('{height}', String(size.height));
        const fetched = await fetchBytes(server, url);
        assert.equal(fetched.status, 200, url);
        assert.equal(fetched.headers['content-type'], 'image/jpeg');
        assert.equal(fetched.headers['cache-control'], 'public, max-age=31536000, immutable');
        const metadata = await sharp(fetched.body).metadata();
        assert.deepEqual([metadata.format, metadata.width, metadata.height], ['jpeg', size.width, size.height]);
        const etag = String(fetched.headers.etag);
        assert.ok(etag.length > 2);
        const cached = await fetchBytes(server, url);
        assert.ok(cached.body.equals(fetched.body), 'the cached resize is the same file');
        const notModified = await fetchBytes(server, url, { 'If-None-Match': etag });
        assert.equal(notModified.status, 304);
        assert.equal(notModified.body.length, 0);
      }
      const first = sizes[0];
      assert.equal(image.url, image.pattern.replace('{width}', String(first.width)).replace('{height}', String(first.height)));
    }
  });

  it('stores the same picture once (content-addressed)', async () => {
    const bytes = await imageBytes('png', 300, 200);
    const one = (await post({ rectangle: dataUri('png', bytes) })).json();
    const two = (await post({ rectangle: dataUri('png', bytes), square: dataUri('png', bytes) })).json();
    assert.equal(one.img_wide.pattern, two.img_wide.pattern);
    assert.equal(two.img.pattern, two.img_wide.pattern);
  });

  it('answers 404 for an unknown hash or a size that is not allowed', async () => {
    const created = (await post({})).json();
    const hash = /\/api\/img\/([0-9a-f]{64})\//.exec(created.img.url)?.[1] ?? '';
    assert.equal((await fetchBytes(server, `${server.url}/api/img/${hash}/100x100.jpg`)).status, 404);
    assert.equal((await fetchBytes(server, `${server.url}/api/img/${hash}/328x328.png`)).status, 404);
    assert.equal((await fetchBytes(server, `${server.url}/api/img/${'0'.repeat(64)}/328x328.jpg`)).status, 404);
    assert.equal((await fetchBytes(server, `${server.url}/api/img/not-a-hash/328x328.jpg`)).status, 404);
  });

  it('rejects anything that is not a real PNG or JPEG within bounds, naming the field', async () => {
    const png = await imageBytes('png', 400, 300);
    const noise = await sharp(randomBytes(900 * 900 * 3), { raw: { width: 900, height: 900, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const cases: [string, string][] = [
      [dataUri('gif', await imageBytes('gif', 300, 300)), 'a GIF declared as GIF'],
      [dataUri('png', await imageBytes('gif', 300, 300)), 'a GIF declared as PNG'],
      [dataUri('jpeg', png), 'a PNG declared as JPEG'],
      [dataUri('png', await imageBytes('jpeg', 300, 300)), 'a JPEG declared as PNG'],
      [dataUri('png', randomBytes(5000)), 'garbage'],
      [dataUri('png', png.subarray(0, Math.floor(png.length / 2))), 'a truncated PNG'],
      ['data:image/png;base64,', 'an empty image'],
      ['data:image/png;base64,%%%%', 'not base64'],
      [png.toString('base64'), 'no data URI prefix'],
      [dataUri('png', await imageBytes('png', 99, 300)), 'too narrow'],
      [dataUri('jpeg', await imageBytes('jpeg', 5001, 100)), 'too wide'],
      [dataUri('png', noise), `too many bytes (${noise.length})`],
    ];
    for (const [uri, what] of cases) {
      const response = await post({ square: uri });
      assert.equal(response.status, 422, what);
      assert.deepEqual(fieldsOf(response), ['square'], what);
      const rectangle = await post({ rectangle: uri });
      assert.deepEqual(fieldsOf(rectangle), ['rectangle'], what);
    }
    const both = await post({ rectangle: 'data:image/png;base64,AAAA', square: 'data:image/jpeg;base64,AAAA' });
    assert.deepEqual(fieldsOf(both), ['rectangle', 'square']);
  });
});
