import { useTranslation } from 'react-i18next';
import { Notice } from '../../components/controls.tsx';

/** Recovery codes as the API shows them: once, so the page says to keep them now. */
export function RecoveryCodes({ codes }: { codes: string[] }) {
  const { t } = useTranslation('account');
  return (
    <Notice kind="ok">
      <p>{t('recoveryCodes.lead')}</p>
      <ul className="recovery-codes" aria-label={t('recoveryCodes.label')}>
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
    </Notice>
  );
}
