import { useMutation } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';

/** What was moderated, with each sentence that names it (its grammar differs by what it is). */
const SENTENCES = {
  site: { rejected: 'moderation.rejected.site', resubmit: 'moderation.resubmit.site' },
  campaign: { rejected: 'moderation.rejected.campaign', resubmit: 'moderation.resubmit.campaign' },
  ad: { rejected: 'moderation.rejected.ad', resubmit: 'moderation.resubmit.ad' },
} as const;

/**
 * Why the operator rejected something, where it is, with the way back: change it, then send it
 * back to moderation. `waiting` says it is back in the queue already (the reason stays in sight).
 */
export function ModerationReason({
  what,
  reason,
  rejected,
  resubmit,
  onResubmitted,
}: {
  what: keyof typeof SENTENCES;
  reason: string | undefined;
  rejected: boolean;
  resubmit: () => Promise<unknown>;
  onResubmitted: () => void;
}) {
  const { t } = useTranslation('shared');
  const send = useMutation({ mutationFn: resubmit, onSuccess: onResubmitted });
  if (!rejected && reason === undefined) return null;
  return (
    <div className="moderation-reason" role={rejected ? 'note' : undefined}>
      <p>
        <strong>{rejected ? t(SENTENCES[what].rejected) : t('moderation.waiting')}</strong> {reason ?? t('moderation.noReason')}
      </p>
      {rejected && (
        <>
          <p className="hint">{t('moderation.hint')}</p>
          <button type="button" onClick={() => send.mutate()} disabled={send.isPending}>
            <Trans t={t} i18nKey={SENTENCES[what].resubmit} components={{ hidden: <span className="visually-hidden" /> }} />
          </button>
        </>
      )}
      {send.error && <Notice kind="error">{problem(send.error)}</Notice>}
    </div>
  );
}
