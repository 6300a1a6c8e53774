import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { readChangeCounter } from '../../db/change-counters.ts';
import type { Db } from '../../db/database.ts';
import type { Principal } from '../../shared/principal.ts';
import { findActiveTokenByHash } from './account-repository.ts';

const TOKEN_PREFIX = 'nv_';

/** A new API token: 32 random bytes, shown to its owner once. */
export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** How long a token lookup is kept when nothing says it changed. */
const TOKEN_CACHE_TTL_MS = 10 * 60_000;
/** How often each instance reads the token change counter (the longest a revocation elsewhere takes without Redis). */
export const TOKEN_CHANGES_POLL_MS = 1000;

/**
 * Resolves tokens to accounts. Every request needs one, so lookups are cached. An entry is used
 * only while
 * - no write to `api_tokens` has committed in this process since it was read (the `generation`
 *   callback, see write-tracker.ts): a revocation through this instance takes effect at once;
 * - the database's token change counter (`change_counters` row `tokens`, moved by a trigger on
 *   every update or delete of a token row) has not moved since it was read: this instance reads it every
 *   `TOKEN_CHANGES_POLL_MS` (`watchChanges`), so a revocation anywhere, by any writer, takes effect
 *   here within about a second; instances sharing Redis also tell each other at once
 *   (`announceRevocation`);
 * - and for at most `ttlMs`.
 * A token's account and kind never change, and revocations are rare, so an entry lives long and
 * any revocation empties the whole cache (one lookup per active token to refill it).
 * Entries are keyed by the token's hash, never by the token: memory holds no usable secret.
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, { principal: Principal; expiresAt: number; generation: number; changes: number }>();
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly generation: () => number;
  /** The token change counter as last read, and how many times it was seen to move. */
  private changesVersion: number | undefined;
  private changesSeen = 0;
  private watch: NodeJS.Timeout | undefined;
  /** Tells the other instances that a token was revoked; set when they share a channel (Redis). */
  announceRevocation: ((tokenId: number) => Promise<void>) | undefined;

  constructor(db: Db, clock: Clock, ttlMs = TOKEN_CACHE_TTL_MS, generation: () => number = () => 0) {
    this.db = db;
    this.clock = clock;
    this.ttlMs = ttlMs;
    this.generation = generation;
  }

  /** Reads the token change counter now; entries read before a move are not used again. */
  async readChanges(): Promise<void> {
    const version = await readChangeCounter(this.db, 'tokens');
    if (version !== this.changesVersion) {
      this.changesVersion = version;
      this.changesSeen += 1;
    }
  }

  /** Reads the token change counter every `intervalMs` until `stopWatching`; errors go to `onError`. */
  watchChanges(intervalMs: number, onError: (error: unknown) => void): void {
    this.stopWatching();
    this.watch = setInterval(() => this.readChanges().catch(onError), intervalMs);
    this.watch.unref();
  }

  stopWatching(): void {
    if (this.watch !== undefined) clearInterval(this.watch);
    this.watch = undefined;
  }

  /**
   * The principal of a token, or undefined for an unknown or revoked one. Every authenticated
   * request asks, so a cached answer comes back at once; only a lookup in the database returns a
   * promise.
   */
  authenticate(token: string): Principal | undefined | Promise<Principal | undefined> {
    if (token.length > 200) return undefined;
    // The key is the hash itself (one digest, no Buffer): equal keys are equal hashes.
    const cacheKey = hash('sha256', token, 'base64');
    const now = this.clock.now();
    const generation = this.generation();
    const changes = this.changesSeen;
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now && cached.generation === generation && cached.changes === changes) {
      return cached.principal;
    }
    return this.lookUp(cacheKey, now, generation, changes);
  }

  private async lookUp(cacheKey: string, now: number, generation: number, changes: number): Promise<Principal | undefined> {
    const tokenHash = Buffer.from(cacheKey, 'base64');
    const row = await findActiveTokenByHash(this.db, tokenHash);
    if (row === undefined || !timingSafeEqual(row.token_hash, tokenHash)) {
      this.cache.delete(cacheKey);
      return undefined;
    }
    const principal: Principal = { accountId: row.account_id, kind: row.kind, tokenId: row.id };
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(cacheKey, { principal, expiresAt: now + this.ttlMs, generation, changes });
    return principal;
  }

  forgetToken(tokenId: number): void {
    for (const [key, entry] of this.cache) if (entry.principal.tokenId === tokenId) this.cache.delete(key);
  }

  /** Drops a revoked token here and, when instances share a channel, everywhere else. */
  async revoked(tokenId: number): Promise<void> {
    this.forgetToken(tokenId);
    await this.announceRevocation?.(tokenId);
  }
}
