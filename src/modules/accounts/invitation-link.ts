import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { actorOf, inRequestTransaction } from '../../http/request-write.ts';
import { emailLink } from '../../http/urls.ts';
import type { Actor } from '../../shared/actor.ts';
import { recordAudit } from '../audit/index.ts';
import type { AccountRow } from './account-service.ts';
import { issueInvitationToken, SET_PASSWORD_PATH } from './sessions/session-service.ts';

export const InvitationLinkSchema = Type.Object(
  {
    url: Type.String({
      description:
        'The link that lets the account choose its first password: usable once, shown only in this answer (only its hash is kept). Every earlier link of the account stops working.',
    }),
    expires: Type.String({ format: 'date-time', description: 'When the link stops working (7 days from now).' }),
  },
  { description: 'A fresh invitation link, to be handed over by hand.' },
);

export const INVITATION_LINK_DESCRIPTION =
  'For a network without SMTP, or a lost e-mail: a new single-use link that lets an account that has not chosen its password yet choose it. Earlier links of the account stop working; the link is in this answer only (`Cache-Control: no-store`), and the issue is in the audit trail (without the link). An account that has a password already is a 409 `password_already_set`: send it a password reset instead.';

/**
 * Answers a fresh invitation link for the account `find` reads in the request's transaction,
 * recording who issued it (never the link itself) in the audit trail.
 */
export async function answerInvitationLink(
  request: FastifyRequest,
  reply: FastifyReply,
  db: Db,
  now: Date,
  find: (trx: Db) => Promise<AccountRow>,
) {
  const actor: Actor = actorOf(request);
  const issued = await inRequestTransaction(request, db, async (trx) => {
    const account = await find(trx);
    const invitation = await issueInvitationToken(trx, account, now);
    const change = {
      action: 'account.invitation_link',
      objectType: 'account',
      objectId: account.id,
      subjectAccountId: account.id,
      after: { expires: invitation.expiresAt.toISOString() },
    };
    await recordAudit(trx, actor, change, now);
    return invitation;
  });
  reply.header('Cache-Control', 'no-store');
  return { url: emailLink(request, `${SET_PASSWORD_PATH}${issued.token}`), expires: issued.expiresAt.toISOString() };
}
