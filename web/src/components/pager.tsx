import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation();
  if (pageCount <= 1) return null;
  return (
    <nav className="pager" aria-label={t('pager.label', { label })}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('pager.previous')}
        <span className="visually-hidden"> {t('pager.pageOf', { label })}</span>
      </button>
      <span aria-live="polite">{t('pager.position', { page, pageCount })}</span>
      <button type="button" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
        {t('pager.next')}
        <span className="visually-hidden"> {t('pager.pageOf', { label })}</span>
      </button>
    </nav>
  );
}
