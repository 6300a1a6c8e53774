import { createHash } from 'node:crypto';
import { type PostgresPool, type PostgresPoolClient, type RawBuilder, sql } from 'kysely';
import { wrapPoolClients } from './pool-wrapper.ts';

/**
 * Named prepared statements for the few statements on a hot path whose planning costs more than
 * their execution (click billing's single statement, docs/adr/0005). PostgreSQL then plans them
 * once per connection instead of on every execution.
 *
 * Kysely cannot pass driver options with a query, so the statement carries a marker comment that
 * the pool recognises. On PGlite the marker is only a comment and the statement runs as usual.
 */
const MARKER = '/* nativa:prepared */';

/** Marks a statement to be run as a named prepared statement (its text must not vary with its data). */
export function prepared<T>(statement: RawBuilder<T>): RawBuilder<T> {
  return sql<T>`${sql.raw(MARKER)} ${statement}`;
}

/** A pool whose connections run marked statements as named prepared statements. */
export function preparingPool(pool: PostgresPool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string => {
    let name = names.get(text);
    if (name === undefined) {
      name = `nativa_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
    }
    return name;
  };
  return wrapPoolClients(pool, (client) => {
    const query = client.query.bind(client) as (config: unknown, values?: readonly unknown[]) => Promise<unknown>;
    return {
      get processID() {
        return (client as { processID?: number }).processID;
      },
      query: (text: string, values: readonly unknown[]) =>
        text.startsWith(MARKER) ? query({ name: nameOf(text), text, values }) : query(text, values),
      release: (...args: unknown[]) => (client.release as (...rest: unknown[]) => void)(...args),
    } as unknown as PostgresPoolClient;
  });
}
