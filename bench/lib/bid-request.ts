import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/db/database.ts';

const FIXTURE = path.join(
  import.meta.dirname,
  '..',
  '..',
  'test',
  'modules',
  'serving',
  'openrtb',
  'fixtures',
  'native-request.json',
);

/**
 * The tests' IAB-shaped native bid request (one impression) as JSON text, addressed to the seeded
 * site's publisher and block: what the OpenRTB scenarios post to the auction.
 */
export async function bidRequestBody(db: Db, siteId: number, blockId: number): Promise<string> {
  const site = await db.selectFrom('sites').select('publisher_id').where('id', '=', siteId).executeTakeFirstOrThrow();
  const request = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  request.site.publisher.id = String(site.publisher_id);
  request.imp[0].tagid = String(blockId);
  return JSON.stringify(request);
}
