import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { Database } from '../../src/db/database.ts';

/**
 * A database the test can take away and give back within one process (PGlite has no server to
 * stop): while it is away every statement fails before it reaches the database, as it would on a
 * refused connection, and nothing is written. The chaos tests stop real servers; this serves the
 * tests that need an outage at a precise point.
 */
export interface DatabaseOutage {
  database: Database;
  away: boolean;
}

export function withOutage(database: Database): DatabaseOutage {
  const outage: DatabaseOutage = { database, away: false };
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (outage.away) throw new Error('connect ECONNREFUSED 127.0.0.1:5432 (the test took the database away)');
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
  outage.database = { ...database, db: database.db.withPlugin(plugin) };
  return outage;
}
