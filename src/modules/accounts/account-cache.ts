import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import type { AccountRow } from './account-repository.ts';
import { getAccount } from './account-service.ts';

/**
 * Account rows for the hot read paths (`GET /api/me` on every poll of a dashboard). A row is
 * served from memory only while no write to `accounts` has committed in this process since it was
 * read (Database.writeGeneration), so a balance change is visible on the very next request here.
 * Changes committed by other instances are seen within `ttlMs`.
 */
export class AccountCache {
  private readonly entries = new Map<number, { row: AccountRow; generation: number; expiresAt: number }>();
  private readonly database: Database;
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(database: Database, clock: Clock, ttlMs = 1000) {
    this.database = database;
    this.clock = clock;
    this.ttlMs = ttlMs;
  }

  async get(id: number): Promise<AccountRow> {
    const generation = this.database.writeGeneration?.('accounts');
    if (generation === undefined) return getAccount(this.database.db, id);
    const now = this.clock.now();
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.generation === generation && entry.expiresAt > now) return entry.row;
    // The generation was read before the row: a write committing in between makes this entry stale at once.
    const row = await getAccount(this.database.db, id);
    if (this.entries.size > 50_000) this.entries.clear();
    this.entries.set(id, { row, generation, expiresAt: now + this.ttlMs });
    return row;
  }
}
