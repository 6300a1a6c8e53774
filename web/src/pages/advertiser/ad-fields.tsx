import type { ComponentProps } from 'react';
import { useTranslation } from 'react-i18next';
import { Field } from '../../components/controls.tsx';
import { TeaserPreview } from '../../components/teaser-preview.tsx';

type FieldProps = Omit<ComponentProps<typeof Field>, 'label' | 'hint'>;

/**
 * The fields an ad has both when it is created and when its content is edited, so the two forms
 * name and limit them alike: the headline (its limit depends on the campaign's countries), the
 * landing page, and the preview of the ad as a block shows it.
 */
export function HeadlineField({ limit, ...field }: FieldProps & { limit: number }) {
  const { t } = useTranslation('advertiser');
  return (
    <Field label={t('adForm.headline')} hint={t('adForm.headlineHint', { count: limit })} required maxLength={limit} {...field} />
  );
}

export function LandingPageField({ maxLength, ...field }: FieldProps & { maxLength: number }) {
  const { t } = useTranslation('advertiser');
  return (
    <Field
      label={t('adForm.landingPage')}
      type="url"
      inputMode="url"
      placeholder="https://"
      required
      maxLength={maxLength}
      {...field}
    />
  );
}

export function AdPreview({ label, ...ad }: ComponentProps<typeof TeaserPreview>) {
  const { t } = useTranslation('advertiser');
  return (
    <section className="preview" aria-label={label ?? t('adForm.preview')}>
      <p className="hint">{t('adForm.asInBlock')}</p>
      <TeaserPreview {...ad} />
    </section>
  );
}
