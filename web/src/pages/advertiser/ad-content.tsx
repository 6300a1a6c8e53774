import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, FIELD_LIMITS, problem, useFieldErrors } from '../../api.ts';
import { Field, FormActions, Notice } from '../../components/controls.tsx';
import { AdPreview, HeadlineField, LandingPageField } from './ad-fields.tsx';
import { readAsDataUri } from './read-image.ts';

interface AdContent {
  id: number;
  title: string;
  opis: string;
  url: string;
  url_mobile: string;
  cost: string;
  img: { url: string } | null;
  img_wide: { url: string } | null;
}

type TextKey = 'title' | 'opis' | 'url' | 'url_mobile';

/**
 * An ad's content after creation: headline, product title, landing pages and pictures. Content is
 * what a moderator approved, so saving a change sends the ad back to moderation (the API's
 * `PUT /advertiser/offers/{id}`); the form says so before the reader saves. Only changed fields
 * are sent, so an unchanged form sends nothing.
 */
export function AdContentForm({
  ad,
  headlineLimit,
  onDone,
  onSaved,
}: {
  ad: AdContent;
  headlineLimit: number;
  onDone: () => void;
  onSaved: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const [form, setForm] = useState<Record<TextKey, string>>({
    title: ad.title,
    opis: ad.opis,
    url: ad.url,
    url_mobile: ad.url_mobile,
  });
  // Prices are whole numbers typed afresh (the ad shows its price only as the teaser's text): empty keeps it.
  const [prices, setPrices] = useState({ price: '', oldPrice: '' });
  const [rectangle, setRectangle] = useState('');
  const [square, setSquare] = useState('');
  const change = {
    ...(form.title !== ad.title ? { title: form.title } : {}),
    ...(form.opis !== ad.opis ? { description: form.opis } : {}),
    ...(form.url !== ad.url ? { url: form.url } : {}),
    ...(form.url_mobile !== ad.url_mobile ? { url_mobile: form.url_mobile } : {}),
    ...(rectangle ? { rectangle } : {}),
    ...(square ? { square } : {}),
    ...(prices.price.trim() ? { price: Number(prices.price.trim()) } : {}),
    ...(prices.oldPrice.trim() ? { oldPrice: Number(prices.oldPrice.trim()) } : {}),
  };
  // A price is a whole number: anything else is said here, before it could be sent as nothing.
  const notWhole = (value: string) =>
    value.trim() !== '' && !/^\d{1,10}$/.test(value.trim()) ? t('adContent.wholeNumber') : undefined;
  const priceErrors = { price: notWhole(prices.price), oldPrice: notWhole(prices.oldPrice) };
  const changed = Object.keys(change).length > 0;
  const save = useMutation({
    mutationFn: async () => {
      const { error } = await api.PUT('/api/advertiser/offers/{id}', { params: { path: { id: ad.id } }, body: change });
      if (error) throw error;
    },
    onSuccess: () => {
      onSaved();
      onDone();
    },
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const limits = FIELD_LIMITS.updateOffer;
  // The API names the text `description`; the ad shows it as `opis`.
  const apiField: Record<TextKey, string> = { title: 'title', opis: 'description', url: 'url', url_mobile: 'url_mobile' };
  const text = (key: TextKey) => ({
    name: `${key}-${ad.id}`,
    value: form[key],
    error: errors[apiField[key]],
    onChange: (event: { target: { value: string } }) => {
      setForm({ ...form, [key]: event.target.value });
      edited(apiField[key]);
    },
  });
  const pick = (name: string, setter: (value: string) => void) => async (event: { target: HTMLInputElement }) => {
    const file = event.target.files?.[0];
    setter(file ? await readAsDataUri(file) : '');
    edited(name);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    if (changed && !priceErrors.price && !priceErrors.oldPrice) save.mutate();
  };
  return (
    <form className="card create-ad" onSubmit={submit} noValidate aria-label={t('adContent.form', { title: ad.title })}>
      <div className="form-grid">
        <h3>{t('adContent.title')}</h3>
        <p className="hint moderation-note" id={`content-note-${ad.id}`}>
          <Trans t={t} i18nKey="adContent.moderationNote" components={{ strong: <strong /> }} />
        </p>
        {general && <Notice kind="error">{problem(save.error)}</Notice>}
        <HeadlineField limit={headlineLimit} {...text('opis')} />
        <Field label={t('adContent.productTitle')} maxLength={limits.title.maxLength} {...text('title')} />
        <LandingPageField maxLength={limits.url.maxLength} {...text('url')} />
        <Field
          label={t('adContent.landingOnPhones')}
          type="url"
          inputMode="url"
          placeholder="https://"
          hint={t('adContent.landingOnPhonesHint')}
          maxLength={limits.url_mobile.maxLength}
          {...text('url_mobile')}
        />
        <Field
          label={t('adContent.newPrice')}
          name={`price-${ad.id}`}
          inputMode="numeric"
          pattern="[0-9]*"
          maxLength={10}
          hint={ad.cost ? t('adContent.priceNow', { cost: ad.cost }) : t('adContent.priceNone')}
          value={prices.price}
          error={priceErrors.price ?? errors.price}
          onChange={(event) => {
            setPrices({ ...prices, price: event.target.value });
            edited('price');
          }}
        />
        <Field
          label={t('adContent.newOldPrice')}
          name={`old-price-${ad.id}`}
          inputMode="numeric"
          pattern="[0-9]*"
          maxLength={10}
          hint={t('adContent.oldPriceHint')}
          value={prices.oldPrice}
          error={priceErrors.oldPrice ?? errors.oldPrice}
          onChange={(event) => {
            setPrices({ ...prices, oldPrice: event.target.value });
            edited('oldPrice');
          }}
        />
        <Field
          label={t('adContent.newWidePicture')}
          name={`rectangle-${ad.id}`}
          type="file"
          accept="image/png,image/jpeg"
          hint={t('adContent.keepPicture')}
          error={errors.rectangle}
          onChange={pick('rectangle', setRectangle)}
        />
        <Field
          label={t('adContent.newSquarePicture')}
          name={`square-${ad.id}`}
          type="file"
          accept="image/png,image/jpeg"
          hint={t('adContent.keepPicture')}
          error={errors.square}
          onChange={pick('square', setSquare)}
        />
        {!changed && <p className="hint">{t('adContent.unchanged')}</p>}
        <FormActions submit={t('adContent.submit')} busy={t('action.saving')} pending={save.isPending} onCancel={onDone} />
      </div>
      <AdPreview
        label={t('adContent.previewOf', { title: ad.title })}
        square={square || ad.img?.url || null}
        wide={rectangle || ad.img_wide?.url || null}
        title={form.title || form.opis}
        url={form.url}
        price={prices.price.trim() || ad.cost}
      />
    </form>
  );
}
