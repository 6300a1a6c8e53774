/** A page of a list and what the `X-Pagination-*` headers say about the whole. */
export interface ListPage<T> {
  items: T[];
  total: number;
  pageCount: number;
}

export async function listPage<T>(call: Promise<{ data?: T[]; response: Response }>): Promise<ListPage<T>> {
  const { data, response } = await call;
  const items = data ?? [];
  return {
    items,
    total: Number(response.headers.get('X-Pagination-Total-Count') ?? items.length),
    pageCount: Math.max(1, Number(response.headers.get('X-Pagination-Page-Count') ?? 1)),
  };
}

/** An amount as the API takes it: a decimal string, so no float ever carries money (`12.50`, `-3`). */
export const AMOUNT = /^\d{1,10}(\.\d{1,4})?$/;

/** A balance (4 fraction digits at most) written back as a decimal string for a form, trailing zeros dropped. */
export function amountText(value: number): string {
  return value.toFixed(4).replace(/\.?0+$/, '');
}
