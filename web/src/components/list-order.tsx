import { useTranslation } from 'react-i18next';
import { setQuery, useLocation } from '../router.tsx';
import { Options } from './controls.tsx';

/**
 * The search (`q`) and order (`sort`) of a list, kept in the page's address and passed to the
 * API as they are (docs/api-conventions.md#sorting-and-search). `sorts` names the orders the page
 * offers; '' is the API's default. `query` is what to spread into the API call's query.
 */
export function useListOrder<S extends string>(sorts: Record<S, string>) {
  const { query } = useLocation();
  const search = query.get('q') ?? '';
  const requested = query.get('sort') ?? '';
  const sort = (Object.keys(sorts) as S[]).find((value) => value === requested) ?? ('' as S);
  const words = search.trim();
  return { search, sort, key: [words, sort], query: { ...(words ? { q: words } : {}), ...(sort ? { sort } : {}) } };
}

/**
 * A search box and a sort select for a list, writing `q` and `sort` into the address (and going
 * back to its first page, when it has pages).
 */
export function ListOrderControls<S extends string>({
  subject,
  placeholder,
  sorts,
  paged = false,
}: {
  /** What the list holds, for the controls' names: "Search sites", "Sort sites". */
  subject: string;
  placeholder: string;
  sorts: Record<S, string>;
  paged?: boolean;
}) {
  const { t } = useTranslation();
  const { search, sort } = useListOrder(sorts);
  const page = paged ? { page: undefined } : {};
  return (
    <>
      <label>
        <span className="visually-hidden">{t('list.search', { subject })}</span>
        <input
          type="search"
          placeholder={placeholder}
          maxLength={255}
          value={search}
          onChange={(event) => setQuery({ q: event.target.value, ...page })}
        />
      </label>
      <select
        aria-label={t('list.sort', { subject })}
        value={sort}
        onChange={(event) => setQuery({ sort: event.target.value, ...page })}
      >
        <Options names={sorts} />
      </select>
    </>
  );
}
