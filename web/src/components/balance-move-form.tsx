import { useMutation } from '@tanstack/react-query';
import { type FormEvent, type ReactNode, useState } from 'react';
import { problem, useFieldErrors } from '../api.ts';
import { parseAmount } from '../format.ts';
import { ConfirmMove, FormActions, Notice } from './controls.tsx';
import { MoneyField } from './number-fields.tsx';

/** A move the form is about to make: which way, and the amount as the decimal string read from the field. */
export interface BalanceMove {
  direction: 1 | -1;
  amount: string;
}

/** What a form's other fields need: the API's refusal of each, and a way to say one was edited. */
export interface MoveFields {
  errors: Record<string, string>;
  /** Hides the field's refusal and withdraws the question: it asked about the form as it was. */
  edited: (field: string) => void;
}

/**
 * A form that moves money (an operator's credit and debit, an advertiser's transfers with a
 * client, a payout): one amount read by the reader's language (`parseAmount`; the direction is
 * the buttons', so a typed sign is refused), then a question with the formatted amount, and
 * nothing is sent before it is confirmed. The amount goes as the decimal string read, never
 * through a float. The API's refusal shows beside its field, or above the form when it names none.
 */
export function BalanceMoveForm<Answer>({
  title,
  label = title,
  heading: Heading = 'h2',
  className,
  lead,
  amount,
  ask,
  askOut,
  onCancel,
  ready,
  question,
  send,
  onMoved,
  notice,
  children,
}: {
  title: string;
  /** The form's name, when it is not its title. */
  label?: string;
  heading?: 'h2' | 'h3';
  className: string;
  /** Said under the title. */
  lead?: ReactNode;
  /** The amount's input: `name` is the input's, `field` the API's name for it in a refusal. */
  amount: { label: string; name: string; field: string; hint?: string; placeholder?: string; initial?: string };
  /** The submit button, which asks about a move in (or the only move). */
  ask: string;
  /** A second button, which asks about a move out. */
  askOut?: { label: string; className?: string };
  /** A Cancel button beside the submit. */
  onCancel?: () => void;
  /** Checks the other fields before the question: a question is never asked about a move the server refuses for them. */
  ready?: () => boolean;
  question: (move: BalanceMove) => { text: string; confirm: string };
  send: (move: BalanceMove) => Promise<Answer>;
  onMoved?: (answer: Answer, move: BalanceMove) => void;
  /** What the form says once a move is made. */
  notice?: (answer: Answer, move: BalanceMove) => string;
  /** The form's other fields, after the amount. */
  children?: (fields: MoveFields) => ReactNode;
}) {
  const [value, setValue] = useState(amount.initial ?? '');
  const [local, setLocal] = useState<string | null>(null);
  // The move read from the field, waiting for its confirmation.
  const [pending, setPending] = useState<BalanceMove | null>(null);
  const move = useMutation({
    mutationFn: send,
    onSuccess: (answer, chosen) => {
      setValue('');
      setPending(null);
      onMoved?.(answer, chosen);
    },
    onError: () => setPending(null),
  });
  const fields = useFieldErrors(move.error);
  const edited = (field: string) => {
    setPending(null);
    fields.edited(field);
  };
  const askAbout = (direction: 1 | -1) => {
    fields.submitted();
    move.reset();
    const parsed = parseAmount(value);
    setLocal(parsed.ok ? null : parsed.message);
    // The other fields are checked too, so each says what is wrong with it at once.
    const others = ready?.() ?? true;
    if (parsed.ok && others) setPending({ direction, amount: parsed.amount });
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    askAbout(1);
  };
  const asked = pending && question(pending);
  return (
    <form className={className} onSubmit={submit} noValidate aria-label={label}>
      <Heading>{title}</Heading>
      {lead}
      {fields.general && <Notice kind="error">{problem(move.error)}</Notice>}
      {move.isSuccess && notice && <Notice kind="ok">{notice(move.data, move.variables)}</Notice>}
      <MoneyField
        label={amount.label}
        name={amount.name}
        placeholder={amount.placeholder}
        hint={amount.hint}
        value={value}
        error={local ?? fields.errors[amount.field]}
        onChange={(event) => {
          setValue(event.target.value);
          setLocal(null);
          edited(amount.field);
        }}
      />
      {children?.({ errors: fields.errors, edited })}
      {pending && asked ? (
        <ConfirmMove
          text={asked.text}
          confirm={asked.confirm}
          pending={move.isPending}
          onConfirm={() => move.mutate(pending)}
          onCancel={() => setPending(null)}
        />
      ) : onCancel ? (
        <FormActions submit={ask} pending={move.isPending} onCancel={onCancel} />
      ) : (
        <div className="actions">
          <button type="submit" className="primary">
            {ask}
          </button>
          {askOut && (
            <button type="button" className={askOut.className} onClick={() => askAbout(-1)}>
              {askOut.label}
            </button>
          )}
        </div>
      )}
    </form>
  );
}
