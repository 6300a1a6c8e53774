import { buildWebIfStale } from '../web/scripts/build-if-stale.ts';
import { pgliteSnapshot } from './helpers/database.ts';

/**
 * Once before the test files start (they run several at once): the web app's build and the
 * migrated PGlite snapshot, which files would otherwise race to make at the same moment.
 */
export async function globalSetup(): Promise<void> {
  buildWebIfStale();
  if (process.env.TEST_DATABASE_URL === undefined) await pgliteSnapshot();
}
