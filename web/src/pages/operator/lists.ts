/** An amount as the API takes it: a decimal string, so no float ever carries money (`12.50`, `-3`). */
export const AMOUNT = /^\d{1,10}(\.\d{1,4})?$/;

/** A balance (4 fraction digits at most) written back as a decimal string for a form, trailing zeros dropped. */
export function amountText(value: number): string {
  return value.toFixed(4).replace(/\.?0+$/, '');
}
