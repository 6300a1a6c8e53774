import type { ComponentProps } from 'react';
import { Field } from './controls.tsx';

type FieldProps = Omit<ComponentProps<typeof Field>, 'inputMode' | 'type'>;

/**
 * The one money input of the advertiser's forms (bids, budgets, limits): the decimal keyboard,
 * no autofill, room for a grouped amount. What is typed is read with `readMoney` (format.ts), by
 * the reader's language, so "1,000" is a thousand in every one of these fields.
 */
export function MoneyField(props: FieldProps) {
  return <Field inputMode="decimal" autoComplete="off" maxLength={20} {...props} />;
}

/**
 * The one whole-number input of the advertiser's forms (click limits, caps, prices in whole
 * units), read with `readWholeNumber` (format.ts): plain or grouped as the reader's language writes it.
 */
export function WholeNumberField(props: FieldProps) {
  return <Field inputMode="numeric" autoComplete="off" maxLength={15} {...props} />;
}
