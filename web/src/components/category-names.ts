import i18next from 'i18next';

/**
 * The categories' names in the page's language. The server keeps one title per category (the
 * seed's, migration 0002, in English); the `common` catalogue names the seed's categories by id in
 * every language. A category an operator renamed or added keeps the title it was given: it is
 * translated only while its title is still the seed's English one.
 */
function named(kind: 'productCategory' | 'siteCategory', category: { id: number | string; title: string }): string {
  const key = `${kind}.${category.id}` as 'productCategory.1';
  const seed = i18next.t(key, { lng: 'en', ns: 'common', defaultValue: '' });
  return seed !== '' && seed === category.title ? i18next.t(key, { ns: 'common' }) : category.title;
}

/** A product category's name (campaigns, ads, brand safety). */
export const productCategoryName = (category: { id: number | string; title: string }) => named('productCategory', category);

/** A site category's name (a publisher's sites). */
export const siteCategoryName = (category: { id: number | string; title: string }) => named('siteCategory', category);
