import type { Db } from '../../db/database.ts';
import type { ListWithTotal } from '../../db/list.ts';
import { inTransaction } from '../../db/transaction.ts';
import { type FieldError, invalidField, notFound, validationFailed } from '../../errors.ts';
import { isId } from '../../shared/ids.ts';
import type { Unchecked } from '../../shared/unchecked.ts';
import {
  ancestorIds,
  type CategoryRow,
  categoryUsage,
  deleteCategory,
  findCategory,
  insertCategory,
  listCategories,
  updateCategory,
} from './category-repository.ts';

const FOREIGN_KEY_VIOLATION = '23503';

export async function getCategory(db: Db, id: number): Promise<CategoryRow> {
  const category = await findCategory(db, id);
  if (category === undefined) throw notFound('Category');
  return category;
}

/** Which of `ids` are not product categories (a site's refused categories must all be). */
/** Every product category, parents and sub-categories, a page of them (what a publisher refuses for brand safety). */
export function listProductCategories(db: Db, limit: number, offset: number): Promise<ListWithTotal<CategoryRow>> {
  return listCategories(db, {}, limit, offset);
}

export async function unknownCategoryIds(db: Db, ids: readonly number[]): Promise<number[]> {
  const found = await Promise.all(ids.map(async (id) => ((await findCategory(db, id)) === undefined ? [id] : [])));
  return found.flat();
}

async function requireParent(trx: Db, parentId: number): Promise<void> {
  if ((await findCategory(trx, parentId)) === undefined) throw invalidField('parentId', 'No such category.');
}

/** A new category's rules beyond its schema: a parent that exists. Written for unchecked input. */
export async function categoryFieldErrors(db: Db, input: Unchecked<{ parentId: number }>): Promise<FieldError[]> {
  if (!isId(input.parentId) || (await findCategory(db, input.parentId)) !== undefined) return [];
  return [{ field: 'parentId', message: 'No such category.' }];
}

export async function createCategory(db: Db, input: { title: string; parentId: number | null }): Promise<CategoryRow> {
  return inTransaction(db, async (trx) => {
    const problems = await categoryFieldErrors(trx, input);
    if (problems.length > 0) throw validationFailed(problems);
    return insertCategory(trx, input);
  });
}

/** Renames or moves a category; moving it under itself or one of its descendants is refused. */
export async function editCategory(
  db: Db,
  id: number,
  input: { title?: string; parentId?: number | null },
): Promise<CategoryRow> {
  return inTransaction(db, async (trx) => {
    const current = await getCategory(trx, id);
    if (input.title === undefined && input.parentId === undefined) return current;
    if (input.parentId !== undefined && input.parentId !== null) {
      await requireParent(trx, input.parentId);
      if ((await ancestorIds(trx, input.parentId)).includes(id)) {
        throw invalidField('parentId', 'A category cannot be moved under itself or one of its subcategories.');
      }
    }
    return updateCategory(trx, id, input);
  });
}

/** Deletes a category nothing refers to; one in use by campaigns, ads or subcategories is a 422. */
export async function removeCategory(db: Db, id: number): Promise<void> {
  await inTransaction(db, async (trx) => {
    await getCategory(trx, id);
    const usage = await categoryUsage(trx, id);
    const problems: FieldError[] = [];
    if (usage.campaigns > 0) problems.push({ field: 'id', message: `Used by ${usage.campaigns} campaign(s).` });
    if (usage.offers > 0) problems.push({ field: 'id', message: `Used by ${usage.offers} ad(s).` });
    if (usage.children > 0) problems.push({ field: 'id', message: `Has ${usage.children} subcategories.` });
    if (problems.length > 0) {
      throw validationFailed([{ field: 'id', message: problems.map((problem) => problem.message).join(' ') }]);
    }
    await deleteCategory(trx, id);
  }).catch((error: unknown) => {
    // A campaign or ad that started using the category meanwhile: the foreign key refuses the delete.
    if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) throw invalidField('id', 'The category is in use.');
    throw error;
  });
}
