import { type SelectQueryBuilder, sql } from 'kysely';

/** One page of rows and how many match in all: what every paginated list answers. */
export interface ListWithTotal<Row> {
  rows: Row[];
  total: number;
}

/**
 * Runs one page of a filtered query and its count side by side. `page` adds the selection, the
 * order, the limit and the offset to the filtered query; the count sees the filter only.
 */
export async function listWithTotal<DB, TB extends keyof DB, Row>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  page: (query: SelectQueryBuilder<DB, TB, object>) => { execute(): Promise<Row[]> },
): Promise<ListWithTotal<Row>> {
  const [rows, counted] = await Promise.all([
    page(filtered).execute(),
    filtered.select(sql<string>`count(*)`.as('total')).$castTo<{ total: string }>().executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(counted.total) };
}
