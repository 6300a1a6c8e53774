/**
 * The discount types an ad may name in `discountType`. They are the same for every campaign
 * today; GET /advertiser/discountType/{campaign} lists them per campaign so that a category-specific
 * list can come later without changing clients.
 */
export const DISCOUNT_TYPES = [
  { id: 'percent', title: 'Percentage off' },
  { id: 'amount', title: 'Amount off' },
  { id: 'free_shipping', title: 'Free shipping' },
  { id: 'gift', title: 'Gift with purchase' },
  { id: 'sale', title: 'Sale' },
] as const;

export type DiscountTypeId = (typeof DISCOUNT_TYPES)[number]['id'];

export function isDiscountType(value: string): value is DiscountTypeId {
  return DISCOUNT_TYPES.some((type) => type.id === value);
}

/** `discount`: how the price reads. 1 a discounted price, 2 "from" a price, 3 "up to" a price. */
export const DISCOUNT_KINDS = { discount: 1, from: 2, upTo: 3 } as const;

export interface PriceInputs {
  price: number | null;
  oldPrice: number | null;
  discount: number | null;
  discountType: string | null;
}

/**
 * The `cost` text of an ad, derived from its price inputs:
 * - no price: empty;
 * - the price, prefixed by `from ` (discount 2) or `up to ` (discount 3);
 * - when an old price above the price is given: ` (was OLD)`;
 * - then the discount type: `percent` ` -P%` (P = rounded share saved off the old price),
 *   `amount` ` -D` (D = old price − price), `free_shipping` ` + free shipping`, `gift` ` + gift`,
 *   `sale` ` sale`.
 * Examples: `1990`, `from 1990`, `1990 (was 2990) -33%`, `up to 500 + free shipping`.
 */
export function costText(inputs: PriceInputs): string {
  if (inputs.price === null) return '';
  const prefix = inputs.discount === DISCOUNT_KINDS.from ? 'from ' : inputs.discount === DISCOUNT_KINDS.upTo ? 'up to ' : '';
  let text = `${prefix}${inputs.price}`;
  const saving = inputs.oldPrice !== null && inputs.oldPrice > inputs.price ? inputs.oldPrice - inputs.price : 0;
  if (saving > 0) text += ` (was ${inputs.oldPrice})`;
  switch (inputs.discountType) {
    case 'percent':
      if (saving > 0 && inputs.oldPrice) text += ` -${Math.round((saving / inputs.oldPrice) * 100)}%`;
      break;
    case 'amount':
      if (saving > 0) text += ` -${saving}`;
      break;
    case 'free_shipping':
      text += ' + free shipping';
      break;
    case 'gift':
      text += ' + gift';
      break;
    case 'sale':
      text += ' sale';
      break;
  }
  return text;
}
