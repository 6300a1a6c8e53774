import { Type } from '@sinclair/typebox';
import type { Db } from '../../db/database.ts';
import { Text } from '../../http/input-types.ts';
import { accountContacts } from '../accounts/index.ts';
import { findLastRejections } from '../audit/index.ts';

/** The reason an operator gives with a decision (rejections of campaigns and ads, bans of sites). */
export const ModerationReasonInput = Text(
  'Why (with a rejection): the owner reads it where the object is, in a notification and by e-mail. Kept until the next approval.',
  { maxLength: 1000 },
);

/** The reason as stored: trimmed, and none when it is empty. */
export const reasonOf = (reason: string | undefined): string | null => (reason?.trim() ? reason.trim() : null);

/** A name to show for an account: its name, or its login when it has none. */
const displayName = (contact: { username: string; name: string }) =>
  contact.name.trim() === '' ? contact.username : contact.name;

/** The display names of the accounts that own these rows, by account id. */
export async function ownerNames(db: Db, ownerIds: readonly number[]): Promise<Map<number, string>> {
  const contacts = await accountContacts(db, ownerIds);
  return new Map(contacts.map((contact) => [contact.id, displayName(contact)]));
}

/** The reason in force on a campaign or an ad, as the operators' lists and decisions answer it. */
export const CurrentReasonSchema = Type.Optional(
  Type.String({ description: 'The reason of the last rejection; present until the object is approved.' }),
);

/** The latest rejection (or ban) of an object, which an operator sees when it comes back to the queue. */
export const LastRejectionSchema = Type.Optional(
  Type.Object(
    {
      reason: Type.Union([Type.String(), Type.Null()], { description: 'The reason given then; null when none was.' }),
      date: Type.String({ format: 'date-time', description: 'When it was rejected.' }),
    },
    { description: 'Its latest rejection (a ban for a site), from the audit trail; absent when it was never rejected.' },
  ),
);

/** The latest rejection of each object of one kind (`campaign`, `offer`, `site`), by id. */
export async function lastRejections(
  db: Db,
  objectType: 'campaign' | 'offer' | 'site',
  ids: readonly number[],
): Promise<Map<number, { reason: string | null; date: string }>> {
  const rows = await findLastRejections(db, objectType, ids);
  return new Map(
    rows.map((row) => [Number(row.object_id), { reason: row.reason, date: new Date(row.created_at).toISOString() }]),
  );
}
