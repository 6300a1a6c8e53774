/**
 * Money is kept in integer micro-units (1 unit = 1,000,000 micros) so that sums are exact.
 * The API shows amounts rounded to 4 fraction digits, as the platform always has.
 */
export const MICROS_PER_UNIT = 1_000_000;

/** The largest amount accepted in one input, in units; keeps every sum a safe integer. */
export const MAX_MONEY_UNITS = 1_000_000_000;

/**
 * The largest balance an account may hold, in units, and in micros. A credit or move that would
 * take a balance past it is refused (422): balances and their sums stay far inside the integers a
 * JavaScript number holds exactly (2^53 micros is about 9 × 10^9 units), so every figure, file and
 * statement written from them is exact.
 */
export const MAX_BALANCE_UNITS = 1_000_000_000;
export const MAX_BALANCE_MICROS = MAX_BALANCE_UNITS * 1_000_000;

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Converts an API amount (number or decimal string) to micros exactly, without passing through
 * binary floating-point arithmetic. Returns undefined for anything that is not a plain decimal
 * with at most 4 fraction digits within the accepted range.
 */
export function parseMoney(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return undefined;
    text = Math.abs(value) < 1e-6 && value !== 0 ? value.toFixed(10) : String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, sign, whole = '0', fraction = ''] = match;
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > 4) return undefined;
  // The whole part first (a long one would not be exact), then the amount itself: 1000000000.0001 is past the cap.
  if (whole.length > 10 || Number(whole) > MAX_MONEY_UNITS) return undefined;
  const micros = Number(whole) * MICROS_PER_UNIT + Number(significantFraction.padEnd(6, '0'));
  if (micros > MAX_MONEY_UNITS * MICROS_PER_UNIT) return undefined;
  return sign ? -micros : micros;
}

/** The API's view of an amount: units rounded to 4 fraction digits. */
export function microsToAmount(micros: number): number {
  return Math.round(micros / 100) / 10_000;
}

/**
 * An amount in micros as exact decimal text in currency units: `7000` is `0.007`, `123457` is
 * `0.123457`, `-2500000` is `-2.5`, `3000000` is `3`. Integer arithmetic only, so no figure passes
 * through a binary fraction; every micro is kept (files are for sums, not for reading at a glance).
 */
export function microsToDecimal(micros: number): string {
  if (!Number.isSafeInteger(micros)) throw new RangeError(`${micros} is not a whole number of micros`);
  const size = Math.abs(micros);
  const whole = Math.floor(size / MICROS_PER_UNIT);
  const fraction = String(size % MICROS_PER_UNIT)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${micros < 0 ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Whole cents, rounded down: publisher income fields are integers in the spec. */
export function microsToCents(micros: number): number {
  return Math.floor(micros / 10_000);
}
