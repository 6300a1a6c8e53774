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

/** Whether an address is plain http: accepted, but its visitors' browsers warn or refuse. */
export const isPlainHttp = (url: string) => /^\s*http:\/\//i.test(url);

/** The landing page, with a warning (not a refusal) while it is a plain http:// address. */
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
      hint={isPlainHttp(String(field.value ?? '')) ? t('adForm.plainHttp') : undefined}
      {...field}
    />
  );
}

/** The ad as blocks will show it: in a square block and in a wide one, each with the picture it is served. */
export function AdPreview({ label, ...ad }: Omit<ComponentProps<typeof TeaserPreview>, 'shape'>) {
  const { t } = useTranslation('advertiser');
  return (
    <section className="preview" aria-label={label ?? t('adForm.preview')}>
      <p className="hint">{t('adForm.asInBlock')}</p>
      <div className="preview-crops">
        <figure>
          <figcaption>{t('adForm.inSquareBlock')}</figcaption>
          <TeaserPreview {...ad} label={t('adForm.previewSquare')} />
        </figure>
        <figure>
          <figcaption>{t('adForm.inWideBlock')}</figcaption>
          <TeaserPreview {...ad} shape="wide" label={t('adForm.previewWide')} />
        </figure>
      </div>
    </section>
  );
}
