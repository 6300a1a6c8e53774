import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * A pool that hands out each of `pool`'s connections wrapped by `wrapClient` (made once per
 * connection). Kysely uses only `connect`, `end`, `options` and, to cancel a query, `Client`.
 */
export function wrapPoolClients(
  pool: PostgresPool,
  wrapClient: (client: PostgresPoolClient) => PostgresPoolClient,
): PostgresPool {
  const wrapped = new WeakMap<PostgresPoolClient, PostgresPoolClient>();
  return {
    options: (pool as { options?: object }).options ?? {},
    Client: (pool as { Client?: unknown }).Client,
    connect: async () => {
      const client = await pool.connect();
      let result = wrapped.get(client);
      if (result === undefined) {
        result = wrapClient(client);
        wrapped.set(client, result);
      }
      return result;
    },
    end: () => pool.end(),
  } as PostgresPool;
}
