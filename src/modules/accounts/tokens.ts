import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import type { Principal } from '../../http/conventions.ts';
import { findActiveTokenByHash } from './account-repository.ts';

const TOKEN_PREFIX = 'nv_';

/** A new API token: 32 random bytes, shown to its owner once. */
export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * Resolves tokens to accounts. Every request needs one, so lookups are cached: an entry is used
 * only while no write to `api_tokens` has committed in this process since it was read (the
 * `generation` callback, see write-tracker.ts), so a revocation through this instance takes effect
 * at once. Revocations on other instances reach this one through `announceRevocation`'s channel
 * (Redis pub/sub when configured) and, at the latest, when the entry expires after `ttlMs`.
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, { principal: Principal; expiresAt: number; generation: number; hash: Buffer }>();
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly ttlMs: number;
  private readonly generation: () => number;
  /** Tells the other instances that a token was revoked; set when they share a channel (Redis). */
  announceRevocation: ((tokenId: number) => Promise<void>) | undefined;

  constructor(db: Db, clock: Clock, ttlMs = 10_000, generation: () => number = () => 0) {
    this.db = db;
    this.clock = clock;
    this.ttlMs = ttlMs;
    this.generation = generation;
  }

  async authenticate(token: string): Promise<Principal | undefined> {
    if (token.length > 200) return undefined;
    const tokenHash = hashToken(token);
    const cacheKey = tokenHash.toString('base64');
    const now = this.clock.now();
    const generation = this.generation();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now && cached.generation === generation && timingSafeEqual(cached.hash, tokenHash)) {
      return cached.principal;
    }
    const row = await findActiveTokenByHash(this.db, tokenHash);
    if (row === undefined || !timingSafeEqual(row.token_hash, tokenHash)) {
      this.cache.delete(cacheKey);
      return undefined;
    }
    const principal: Principal = { accountId: row.account_id, kind: row.kind, tokenId: row.id };
    if (this.cache.size > 100_000) this.cache.clear();
    this.cache.set(cacheKey, { principal, expiresAt: now + this.ttlMs, generation, hash: tokenHash });
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
