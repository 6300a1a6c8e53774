import { useTranslation } from 'react-i18next';
import { Link } from '../router.tsx';

/**
 * What the page of one object shows when the API answers 404 for its id (it does not exist, or
 * is another account's): what is missing, and the way back to the list.
 */
export function Missing({ what, text, back, backLabel }: { what: string; text: string; back: string; backLabel: string }) {
  const { t } = useTranslation();
  return (
    <>
      <h1>{t('missing.title', { what })}</h1>
      <p>
        {text} <Link href={back}>{backLabel}</Link>
      </p>
    </>
  );
}
