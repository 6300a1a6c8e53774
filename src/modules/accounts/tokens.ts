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
 * Resolves tokens to accounts. Lookups are cached for a few seconds because every request needs
 * one; revoking a token through this instance drops it from the cache at once, and other
 * instances stop accepting it when their entry expires (at most `ttlMs` later).
 */
export class TokenAuthenticator {
  private readonly cache = new Map<string, { principal: Principal; expiresAt: number; hash: Buffer }>();
  private readonly db: Db;
  private readonly clock: Clock;
  private readonly ttlMs: number;

  constructor(db: Db, clock: Clock, ttlMs = 2000) {
    this.db = db;
    this.clock = clock;
    this.ttlMs = ttlMs;
  }

  async authenticate(token: string): Promise<Principal | undefined> {
    if (token.length > 200) return undefined;
    const tokenHash = hashToken(token);
    const cacheKey = tokenHash.toString('base64');
    const now = this.clock.now();
    const cached = this.cache.get(cacheKey);
    if (cached && cached.expiresAt > now && timingSafeEqual(cached.hash, tokenHash)) return cached.principal;
    const row = await findActiveTokenByHash(this.db, tokenHash);
    if (row === undefined || !timingSafeEqual(row.token_hash, tokenHash)) {
      this.cache.delete(cacheKey);
      return undefined;
    }
    const principal: Principal = { accountId: row.account_id, kind: row.kind, tokenId: row.id };
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(cacheKey, { principal, expiresAt: now + this.ttlMs, hash: tokenHash });
    return principal;
  }

  forgetToken(tokenId: number): void {
    for (const [key, entry] of this.cache) if (entry.principal.tokenId === tokenId) this.cache.delete(key);
  }
}
