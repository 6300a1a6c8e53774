// A teaser's picture has the block's shape (docs/serving.md, the teasers answer): a block whose
// design has wide pictures gets the ad's 3:2 picture, any other block the square one, each in the
// size the image route serves for that shape.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { imageBytes } from '../../helpers/advertiser.ts';
import { insertBlock } from '../../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { createWorld, DESKTOP_UA, engineOf, pathOf } from '../../helpers/serving.ts';

describe('the picture of a teaser follows the block’s shape', () => {
  let server: TestServer;

  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  async function imagesOf(blockId: number): Promise<(string | null)[]> {
    const response = await server.anonymous.get(`/api/serve/blocks/${blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA },
    });
    assert.equal(response.status, 200, response.text);
    return response.json<{ teasers: { image: string | null }[] }>().teasers.map((teaser) => teaser.image);
  }

  it('a wide block gets the 3:2 picture (492×328), a square block the square one (328×328)', async () => {
    const { db, images } = server.server.context;
    const world = await createWorld(server, { ads: [{ bidMicros: 300_000 }, { bidMicros: 200_000 }], teaserCount: 2 });
    const [withBoth, squareOnly] = world.offerIds as [number, number];
    const square = await images.save(await imageBytes('png', 400, 400));
    const wide = await images.save(await imageBytes('png', 600, 400));
    await db.updateTable('offers').set({ image_square: square, image_wide: wide }).where('id', '=', withBoth).execute();
    await db.updateTable('offers').set({ image_square: square, image_wide: null }).where('id', '=', squareOnly).execute();
    const changed = await world.publisher.put(`/api/webmaster/blocks/${world.blockId}`, { design: { imageShape: 'wide' } });
    assert.equal(changed.status, 200, changed.text);
    const squareBlock = await insertBlock(db, { siteId: world.siteId, teaserCount: 2 });
    await engineOf(server).refresh();

    const base = `${server.url}/api/img`;
    // Twice each: the second answer comes from the cached part of each ad's teaser.
    for (let round = 0; round < 2; round += 1) {
      assert.deepEqual(await imagesOf(world.blockId), [`${base}/${wide}/492x328.jpg`, `${base}/${square}/492x328.jpg`]);
      assert.deepEqual(await imagesOf(squareBlock.id), [`${base}/${square}/328x328.jpg`, `${base}/${square}/328x328.jpg`]);
    }
    const picture = await server.anonymous.get(pathOf(`${base}/${wide}/492x328.jpg`));
    assert.equal(picture.status, 200, 'the wide URL is one the image route serves');

    const xml = await server.anonymous.get(`/api/serve/blocks/${world.blockId}/teasers`, {
      headers: { 'User-Agent': DESKTOP_UA, Accept: 'application/xml' },
    });
    assert.ok(xml.text.includes(`${wide}/492x328.jpg`), 'the object answer (XML) carries the wide picture too');
  });
});
