import type { Db } from '../../db/database.ts';
import { accountContacts } from '../accounts/index.ts';
import { escapeHtml } from '../mail/messages.ts';
import { queueAccountMessage } from '../mail/outbox-service.ts';
import { notify } from '../notifications/index.ts';

/** What was decided on, as its owner knows it. */
export interface Decision {
  ownerId: number;
  object: 'campaign' | 'ad' | 'site';
  objectId: number;
  /** The campaign's or ad's title, the site's address. */
  name: string;
  outcome: 'approved' | 'rejected' | 'moderation' | 'unconfirmed';
  /** The operator's reason (rejections); null when none was given. */
  reason: string | null;
  now: Date;
}

const OUTCOME_WORDS: Record<Decision['outcome'], string> = {
  approved: 'was approved',
  rejected: 'was rejected',
  moderation: 'is back in moderation',
  unconfirmed: 'is waiting for your confirmation of the site',
};

const OBJECT_WORDS: Record<Decision['object'], string> = { campaign: 'campaign', ad: 'ad', site: 'site' };

/** The sentence the owner reads, in the notification and the e-mail. */
export function decisionSentence(decision: Decision): string {
  const what = `Your ${OBJECT_WORDS[decision.object]} “${decision.name}” ${OUTCOME_WORDS[decision.outcome]}`;
  if (decision.outcome !== 'rejected') return `${what}.`;
  const reason = decision.reason === null ? '' : `: ${decision.reason}`;
  return `${what}${reason}. Change it and send it back to moderation from your account.`;
}

/**
 * Tells the owner of a moderated object what was decided: an in-app notification and an e-mail
 * (through the outbox), both in the decision's transaction, so neither exists for a decision that
 * rolled back and neither is lost for one that committed.
 */
export async function announceDecision(trx: Db, decision: Decision): Promise<void> {
  const sentence = decisionSentence(decision);
  await notify(trx, [
    {
      accountId: decision.ownerId,
      kind: 'moderation.decided',
      text: sentence,
      data: { object: decision.object, id: decision.objectId, outcome: decision.outcome, reason: decision.reason },
      now: decision.now,
    },
  ]);
  const [owner] = await accountContacts(trx, [decision.ownerId]);
  if (owner === undefined || owner.email === '') return;
  const subject = `Nativa: your ${OBJECT_WORDS[decision.object]} ${OUTCOME_WORDS[decision.outcome]}`;
  const message = {
    subject,
    text: ['Hello,', '', sentence, ''].join('\n'),
    html: `<p>Hello,</p>\n<p>${escapeHtml(sentence)}</p>`,
  };
  await queueAccountMessage(trx, { kind: 'moderation', account: owner, message, now: decision.now });
}
