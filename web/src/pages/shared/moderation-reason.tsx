import { useMutation } from '@tanstack/react-query';
import { problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';

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
  what: string;
  reason: string | undefined;
  rejected: boolean;
  resubmit: () => Promise<unknown>;
  onResubmitted: () => void;
}) {
  const send = useMutation({ mutationFn: resubmit, onSuccess: onResubmitted });
  if (!rejected && reason === undefined) return null;
  return (
    <div className="moderation-reason" role={rejected ? 'note' : undefined}>
      <p>
        <strong>{rejected ? `The operator rejected this ${what}` : `Back in moderation; last time the operator said`}:</strong>{' '}
        {reason ?? 'no reason was given.'}
      </p>
      {rejected && (
        <>
          <p className="hint">Change what the reason names, then send it back: it waits for a new decision.</p>
          <button type="button" onClick={() => send.mutate()} disabled={send.isPending}>
            Send back to moderation<span className="visually-hidden"> ({what})</span>
          </button>
        </>
      )}
      {send.error && <Notice kind="error">{problem(send.error)}</Notice>}
    </div>
  );
}
