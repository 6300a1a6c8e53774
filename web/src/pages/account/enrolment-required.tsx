import { useTranslation } from 'react-i18next';
import { TwoFactorSection } from './two-factor.tsx';

/** What an account that must have two-factor sign-in sees until it has: the enrolment, before anything else. */
export function EnrolmentRequiredPage() {
  const { t } = useTranslation('account');
  return (
    <>
      <div className="page-head">
        <h1>{t('enrolment.title')}</h1>
      </div>
      <p className="lead">{t('enrolment.lead')}</p>
      <TwoFactorSection holdCodes />
    </>
  );
}
