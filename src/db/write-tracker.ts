import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { wrapPoolClients } from './pool-wrapper.ts';

/**
 * Counts the writes this process has committed, per table. A cache of rows (accounts on every
 * authenticated request) reads the table's generation before it reads the database and keeps the
 * row only while the generation is unchanged, so a committed change is seen by the very next
 * request on this instance, whichever module made it.
 *
 * Writes are recognised in the SQL text each connection runs, and counted when the statement
 * completes outside a transaction, or when its transaction commits. Over-counting (a `FOR UPDATE`,
 * a rolled-back write) only costs a cache refill; a write is never missed, because every query of
 * the process goes through the pool this tracker wraps.
 */
export class WriteTracker {
  private readonly generations = new Map<string, number>();
  /** Writes the tracker cannot attribute to a table (raw sessions) count for every table. */
  private everything = 0;

  generation(table: string): number {
    return (this.generations.get(table) ?? 0) + this.everything;
  }

  bumpAll(): void {
    this.everything += 1;
  }

  bump(tables: Iterable<string>): void {
    for (const table of tables) this.generations.set(table, (this.generations.get(table) ?? 0) + 1);
  }

  /** A pool whose connections report their writes to this tracker. */
  wrapPool(pool: PostgresPool): PostgresPool {
    return wrapPoolClients(pool, (client) => this.wrapClient(client));
  }

  private wrapClient(client: PostgresPoolClient): PostgresPoolClient {
    let inTransaction = false;
    const pending = new Set<string>();
    const observe = (sqlText: string): void => {
      const keyword = firstWord(sqlText);
      if (keyword === 'begin' || keyword === 'start') {
        inTransaction = true;
        pending.clear();
      } else if (keyword === 'commit' || keyword === 'end' || keyword === 'rollback') {
        if (keyword === 'rollback' && /^\s*rollback\s+to\b/i.test(sqlText)) return;
        // A failed or rolled-back transaction wrote nothing, but counting it is harmless.
        this.bump(pending);
        pending.clear();
        inTransaction = false;
      } else {
        const tables = writtenTables(sqlText);
        if (tables.length === 0) return;
        if (inTransaction) for (const table of tables) pending.add(table);
        else this.bump(tables);
      }
    };
    return {
      get processID() {
        return (client as { processID?: number }).processID;
      },
      async query(sqlText: string, parameters: readonly unknown[]) {
        try {
          return await (client.query as (text: string, values: readonly unknown[]) => Promise<unknown>)(sqlText, parameters);
        } finally {
          observe(sqlText);
        }
      },
      release: (...args: unknown[]) => (client.release as (...rest: unknown[]) => void)(...args),
    } as unknown as PostgresPoolClient;
  }
}

function firstWord(sqlText: string): string {
  const match = /^\s*([a-z]+)/i.exec(sqlText);
  return match?.[1]?.toLowerCase() ?? '';
}

const WRITE =
  /\b(?:insert\s+into|update|delete\s+from|truncate(?:\s+table)?)\s+(?:only\s+)?(?:"?public"?\.)?"?([a-z_][a-z0-9_]*)"?/gi;
const MAYBE_WRITE = /insert|update|delete|truncate/i;

/** The tables a statement may write (a superset: `FOR UPDATE` counts too). */
export function writtenTables(sqlText: string): string[] {
  if (!MAYBE_WRITE.test(sqlText)) return [];
  return [...sqlText.matchAll(WRITE)].map((match) => (match[1] ?? '').toLowerCase());
}
