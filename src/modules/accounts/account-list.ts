import { searchParameter, sortParameter } from '../../http/sorting.ts';
import { readSort } from '../../shared/list-query.ts';
import { ACCOUNT_SORT_FIELDS, type AccountSortField } from './account-repository.ts';

/** The search and order of an account list (the operator's accounts, an advertiser's clients). */
export const accountListParameters = {
  q: searchParameter('login, name or e-mail'),
  sort: sortParameter(ACCOUNT_SORT_FIELDS, 'id'),
};

/** The filter parts of accountListParameters as a list reads them. */
export const accountListOrder = (query: { q?: string; sort?: string }) => ({
  search: query.q?.trim() || undefined,
  sort: readSort(query.sort, { field: 'id' as AccountSortField, descending: false }),
});
