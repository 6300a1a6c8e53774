import { type Selectable, sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { type ListWithTotal, listWithTotal } from '../../db/list.ts';
import type { CategoriesTable } from '../../db/schema.ts';

export type CategoryRow = Selectable<CategoriesTable>;

/** Categories under `parentId` (null: the roots), by id. */
export async function listCategories(
  db: Db,
  filter: { parentId?: number | null },
  limit: number,
  offset: number,
): Promise<ListWithTotal<CategoryRow>> {
  let query = db.selectFrom('categories');
  if (filter.parentId === null) query = query.where('parent_id', 'is', null);
  else if (filter.parentId !== undefined) query = query.where('parent_id', '=', filter.parentId);
  return listWithTotal(query, (filtered) => filtered.selectAll().orderBy('id').limit(limit).offset(offset));
}

export async function findCategory(db: Db, id: number): Promise<CategoryRow | undefined> {
  return db.selectFrom('categories').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertCategory(trx: Db, values: { title: string; parentId: number | null }): Promise<CategoryRow> {
  return trx
    .insertInto('categories')
    .values({ title: values.title, parent_id: values.parentId })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function updateCategory(
  trx: Db,
  id: number,
  values: { title?: string; parentId?: number | null },
): Promise<CategoryRow> {
  return trx
    .updateTable('categories')
    .set({ title: values.title, parent_id: values.parentId })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteCategory(trx: Db, id: number): Promise<void> {
  await trx.deleteFrom('categories').where('id', '=', id).execute();
}

/** What refers to a category: campaigns (their category), ads (their subcategory) and child categories. */
export async function categoryUsage(db: Db, id: number): Promise<{ campaigns: number; offers: number; children: number }> {
  const row = await db
    .selectNoFrom((eb) => [
      eb.selectFrom('campaigns').select(eb.fn.countAll<number>().as('n')).where('category_id', '=', id).as('campaigns'),
      eb.selectFrom('offers').select(eb.fn.countAll<number>().as('n')).where('sub_category_id', '=', id).as('offers'),
      eb.selectFrom('categories').select(eb.fn.countAll<number>().as('n')).where('parent_id', '=', id).as('children'),
    ])
    .executeTakeFirstOrThrow();
  return { campaigns: Number(row.campaigns), offers: Number(row.offers), children: Number(row.children) };
}

/** Ids of `id` and all its ancestors, walking up the tree. */
export async function ancestorIds(db: Db, id: number): Promise<number[]> {
  const result = await sql<{ id: number }>`
    WITH RECURSIVE up(id, parent_id, depth) AS (
      SELECT id, parent_id, 0 FROM categories WHERE id = ${id}
      UNION ALL
      SELECT c.id, c.parent_id, up.depth + 1 FROM categories c JOIN up ON c.id = up.parent_id WHERE up.depth < 100
    )
    SELECT id FROM up`.execute(db);
  return result.rows.map((row) => Number(row.id));
}
