import type { Db } from '../db/database.ts';

/** The answer stored with a key: what the first request's handler returned, with its status and headers. */
export interface StoredAnswer {
  requestHash: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Where keys live (the idempotency module's repository); every call runs in the request's transaction. */
export interface IdempotencyStore {
  /**
   * Takes the key's lock until the transaction ends and reads the answer stored with the key at or
   * after `notBefore`, in one statement: `locked` is false when another transaction holds the lock.
   * The read's snapshot is the statement's, taken before the lock: an answer committed by the
   * lock's previous holder in between is not seen, and `save` then finds its row and refuses.
   */
  lockAndFind(trx: Db, accountId: number, key: string, notBefore: Date): Promise<{ locked: boolean; stored?: StoredAnswer }>;
  /** Stores the answer (replacing an expired one); false when a live answer is there already. */
  save(trx: Db, accountId: number, key: string, answer: StoredAnswer, now: Date, notBefore: Date): Promise<boolean>;
  /** Deletes the answers stored before `notBefore`; returns how many. */
  sweep(db: Db, notBefore: Date): Promise<number>;
}
