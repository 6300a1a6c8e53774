import { randomBytes } from 'node:crypto';
import type { Db } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { notFound } from '../../../errors.ts';
import { hashPostbackKey } from '../../serving/index.ts';
import { deletePostbackKey, findPostbackKey, replacePostbackKey } from './postback-key-repository.ts';

/** How a postback key starts: recognisable in a tracker's settings and in a leaked log. */
export const POSTBACK_KEY_PREFIX = 'nvpb_';
/** The characters of a key shown again later (its prefix and a few more), enough to tell two apart. */
const SHOWN_CHARACTERS = POSTBACK_KEY_PREFIX.length + 6;

export interface PostbackKeyState {
  /** Whether the advertiser has a key. */
  exists: boolean;
  /** Its first characters. */
  prefix?: string;
  createdAt?: string;
}

export async function postbackKeyState(db: Db, advertiserId: number): Promise<PostbackKeyState> {
  const row = await findPostbackKey(db, advertiserId);
  return row === undefined
    ? { exists: false }
    : { exists: true, prefix: row.key_prefix, createdAt: new Date(row.created_at).toISOString() };
}

/**
 * A new postback key for the advertiser, replacing the old one (postbacks with it are refused
 * from now on). The key is answered once and only its hash is kept.
 */
export async function rotatePostbackKey(db: Db, advertiserId: number, now: Date) {
  const key = `${POSTBACK_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const prefix = key.slice(0, SHOWN_CHARACTERS);
  await replacePostbackKey(db, advertiserId, hashPostbackKey(key), prefix, now);
  return { key, prefix, createdAt: now.toISOString() };
}

/** Deletes the advertiser's key: no postback counts until a new one is made. 404 without one. */
export async function revokePostbackKey(db: Db, advertiserId: number): Promise<void> {
  const deleted = await inTransaction(db, (trx) => deletePostbackKey(trx, advertiserId));
  if (!deleted) throw notFound('Postback key');
}
