import type { Db } from '../../db/database.ts';
import { accountContacts } from '../accounts/index.ts';
import type { Language } from '../mail/index.ts';
import { escapeHtml, mailText, queueAccountMessage } from '../mail/index.ts';
import { notify } from '../notifications/index.ts';
import type { DecisionOutcome, ModeratedObject } from './moderated-kind.ts';

/** What was decided on, as its owner knows it. */
export interface Decision {
  ownerId: number;
  object: ModeratedObject;
  objectId: number;
  /** The campaign's or ad's title, the site's address. */
  name: string;
  outcome: DecisionOutcome;
  /** The operator's reason (rejections); null when none was given. */
  reason: string | null;
  now: Date;
}

/** The sentence the owner reads, in the notification and the e-mail, in the owner's language. */
export function decisionSentence(decision: Decision, language: Language): string {
  const t = mailText(language);
  const name = decision.name;
  if (decision.outcome === 'rejected' && decision.reason !== null) {
    return t(`moderation.${decision.object}.rejectedBecause`, { name, reason: decision.reason });
  }
  return t(`moderation.${decision.object}.${decision.outcome}`, { name });
}

/**
 * Tells the owner of a moderated object what was decided: an in-app notification and an e-mail
 * (through the outbox), both in the decision's transaction, so neither exists for a decision that
 * rolled back and neither is lost for one that committed. Both are written in the owner's
 * language as that transaction reads it.
 */
export async function announceDecision(trx: Db, decision: Decision): Promise<void> {
  const [owner] = await accountContacts(trx, [decision.ownerId]);
  const language = owner?.language ?? 'en';
  const sentence = decisionSentence(decision, language);
  await notify(trx, [
    {
      accountId: decision.ownerId,
      kind: 'moderation.decided',
      text: sentence,
      data: { object: decision.object, id: decision.objectId, outcome: decision.outcome, reason: decision.reason },
      now: decision.now,
    },
  ]);
  if (owner === undefined || owner.email === '') return;
  const t = mailText(language);
  const message = {
    subject: t(`moderation.${decision.object}.${decision.outcome}.subject`),
    text: [t('greeting'), '', sentence, ''].join('\n'),
    html: `<p>${escapeHtml(t('greeting'))}</p>\n<p>${escapeHtml(sentence)}</p>`,
  };
  await queueAccountMessage(trx, { kind: 'moderation', account: owner, message, now: decision.now });
}
