import { type Static, Type } from '@sinclair/typebox';
import type { CategoryRow } from './category-repository.ts';

export const CategorySchema = Type.Object(
  {
    id: Type.Integer({ description: 'Category id.' }),
    parent_id: Type.Union([Type.Integer(), Type.Null()], { description: 'Parent category id; null for a root category.' }),
    title: Type.String({ description: 'Title.' }),
  },
  { description: 'A product category.' },
);

export type Category = Static<typeof CategorySchema>;

export const toCategory = (row: CategoryRow): Category => ({ id: row.id, parent_id: row.parent_id, title: row.title });
