/**
 * The product category tree, which campaigns, ads and sites are filed under and operators edit:
 * what other modules use of it (its list and schema, checking ids).
 */
export { type CategoryRow, listCategories } from './category-repository.ts';
export { CategorySchema, toCategory } from './category-schema.ts';
export { listProductCategories, unknownCategoryIds } from './category-service.ts';
