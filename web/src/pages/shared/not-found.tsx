import { useTranslation } from 'react-i18next';
import { Link } from '../../router.tsx';

/** What an address the app does not have shows, and a page of another kind of account. */
export function NotFoundPage() {
  const { t } = useTranslation('shared');
  return (
    <>
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.text')}</p>
      <p>
        <Link href="/">{t('notFound.start')}</Link>
      </p>
    </>
  );
}
