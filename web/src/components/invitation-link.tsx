import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { problem } from '../api.ts';
import { moment } from '../format.ts';
import { Notice } from './controls.tsx';

interface InvitationLink {
  url: string;
  expires: string;
}

/**
 * "Copy invitation link": a new single-use link for an account that has not chosen its password,
 * for a person to hand over when no mail server is set up or an e-mail was lost. The link lives in
 * this component's state only, so it is shown once: leaving the page forgets it, and a new one
 * spends the old.
 */
export function InvitationLinkButton({ issue, username }: { issue: () => Promise<InvitationLink>; username: string }) {
  const { t } = useTranslation();
  const [copied, setCopied] = useState(false);
  const invitation = useMutation({ mutationFn: issue, onSuccess: () => setCopied(false) });
  const copy = async (value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  };
  return (
    <div className="invitation-link">
      <button type="button" disabled={invitation.isPending} onClick={() => invitation.mutate()}>
        {t('invitation.create')}
      </button>
      {invitation.data && (
        <div className="notice ok" role="status">
          <p>{t('invitation.created', { username, date: moment(invitation.data.expires) })}</p>
          <div className="copy-row">
            <code className="secret">{invitation.data.url}</code>
            <button type="button" onClick={() => copy(invitation.data.url)}>
              {copied ? t('invitation.copied') : t('invitation.copy')}
            </button>
          </div>
        </div>
      )}
      {invitation.error && <Notice kind="error">{problem(invitation.error)}</Notice>}
    </div>
  );
}
