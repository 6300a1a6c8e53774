import { useMutation } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { problem } from '../api.ts';
import { moment } from '../format.ts';
import { Notice } from './controls.tsx';
import { CopyField } from './copy-field.tsx';
import { useForgetOnLeave } from './shown-once.ts';

interface InvitationLink {
  url: string;
  expires: string;
}

/**
 * "Copy invitation link": a new single-use link for an account that has not chosen its password,
 * for a person to hand over when no mail server is set up or an e-mail was lost. The link lives in
 * this component's state only and is forgotten when the page is left, so it is shown once; a new
 * one spends the old.
 */
export function InvitationLinkButton({ issue, username }: { issue: () => Promise<InvitationLink>; username: string }) {
  const { t } = useTranslation();
  const invitation = useMutation({ mutationFn: issue });
  useForgetOnLeave(invitation.reset);
  return (
    <div className="invitation-link">
      <button type="button" disabled={invitation.isPending} onClick={() => invitation.mutate()}>
        {t('invitation.create')}
      </button>
      {invitation.data && (
        <div className="notice ok">
          <p>{t('invitation.created', { username, date: moment(invitation.data.expires) })}</p>
          <CopyField label={t('invitation.link')} value={invitation.data.url} />
        </div>
      )}
      {invitation.error && <Notice kind="error">{problem(invitation.error)}</Notice>}
    </div>
  );
}
