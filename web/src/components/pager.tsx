/** Previous / next over the pages of a list, with where the reader is. */
export function Pager({
  page,
  pageCount,
  label,
  onPage,
}: {
  page: number;
  pageCount: number;
  label: string;
  onPage: (page: number) => void;
}) {
  if (pageCount <= 1) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous<span className="visually-hidden"> page of {label}</span>
      </button>
      <span aria-live="polite">
        Page {page} of {pageCount}
      </span>
      <button type="button" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
        Next<span className="visually-hidden"> page of {label}</span>
      </button>
    </nav>
  );
}
