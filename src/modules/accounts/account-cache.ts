import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import type { AccountRow } from './account-repository.ts';
import { getAccount } from './account-service.ts';

/**
 * Account rows for the hot read paths (`GET /api/me` on every poll of a dashboard). A row is
 * served from memory only while no write to `accounts` has committed in this process since it was
 * read (Database.writeGeneration), so a balance change is visible on the very next request here.
 * Changes committed by other instances are seen within `ttlMs`. Requests that miss together (a
 * burst of one account's requests when its entry expires under load) share one read.
 */
export class AccountCache {
  private readonly entries = new Map<number, { row: AccountRow; generation: number; expiresAt: number }>();
  private readonly reads = new Map<number, { row: Promise<AccountRow>; generation: number }>();
  private readonly database: Database;
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(database: Database, clock: Clock, ttlMs = 1000) {
    this.database = database;
    this.clock = clock;
    this.ttlMs = ttlMs;
  }

  /** The account's row: at once from memory, through a promise when it has to be read. */
  get(id: number): AccountRow | Promise<AccountRow> {
    const generation = this.database.writeGeneration?.('accounts');
    if (generation === undefined) return getAccount(this.database.db, id);
    const now = this.clock.now();
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.generation === generation && entry.expiresAt > now) return entry.row;
    // A read started at this generation is as fresh as a new one: no write has committed here since.
    const pending = this.reads.get(id);
    if (pending !== undefined && pending.generation === generation) return pending.row;
    return this.read(id, generation, now);
  }

  private async read(id: number, generation: number, now: number): Promise<AccountRow> {
    // The generation was read before the row: a write committing in between makes this entry stale at once.
    const row = getAccount(this.database.db, id);
    const read = { row, generation };
    this.reads.set(id, read);
    try {
      const found = await row;
      if (this.entries.size > 50_000) this.entries.clear();
      this.entries.set(id, { row: found, generation, expiresAt: now + this.ttlMs });
      return found;
    } finally {
      if (this.reads.get(id) === read) this.reads.delete(id);
    }
  }
}
