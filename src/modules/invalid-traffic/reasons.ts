import { type ClicksTable, REFUND_REASONS, type RefundReason } from '../../db/schema.ts';
import { GIVT_REASONS } from '../serving/index.ts';

/**
 * The reasons of invalid traffic as the disclosure tells them (docs/invalid-traffic.md, "Reasons"):
 * the rules that refuse a click on arrival, and the reasons a billed click is refunded for. Typed
 * from the tables' CHECK constraints (src/db/schema.ts), so a reason added there and not here fails
 * the typecheck.
 */

/** Why a click was refused on arrival (general invalid traffic); a refused click without one is `bot`. */
export type RefusalReason = NonNullable<ClicksTable['invalid_reason']>;
/** The serving path's general invalid-traffic rules, one list (serving/tracking/invalid-traffic.ts). */
export const REFUSAL_REASONS = GIVT_REASONS satisfies readonly RefusalReason[];

/** Why billed clicks were refunded: the automatic rules' reasons and the operators' own (the schema's list). */
export { REFUND_REASONS, type RefundReason };

// The list names every value of the column: a reason missing from it fails here.
type Missing<All, Listed> = Exclude<All, Listed> extends never ? true : never;
const everyRefusal: Missing<RefusalReason, (typeof REFUSAL_REASONS)[number]> = true;
void everyRefusal;

/** Every reason a click can be invalid for, each once (a few name both a refusal and a refund). */
export const INVALID_REASONS = [...new Set<string>([...REFUSAL_REASONS, ...REFUND_REASONS])] as (RefusalReason | RefundReason)[];
export type InvalidReason = RefusalReason | RefundReason;

/** How an invalid click was kept from being paid: refused on arrival, or billed then refunded. */
export const OUTCOMES = ['refused', 'refunded'] as const;
export type InvalidOutcome = (typeof OUTCOMES)[number];
