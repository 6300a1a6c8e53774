import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, FIELD_LIMITS, problem, useFieldErrors } from '../../api.ts';
import { Field, FormActions, Notice } from '../../components/controls.tsx';
import { WholeNumberField } from '../../components/number-fields.tsx';
import { readWholeNumber } from '../../format.ts';
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

type TextKey = 'title' | 'url' | 'url_mobile';

/**
 * An ad's content after creation: headline, landing pages, price and pictures. The headline is
 * what blocks show (`title`); the web account writes it into the API's required text
 * (`description`, which ad exchanges show) too, so an advertiser types one text (docs/web-account.md,
 * "One headline"). Content is
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
    url: ad.url,
    url_mobile: ad.url_mobile,
  });
  // Prices are whole numbers typed afresh (the ad shows its price only as the teaser's text): empty keeps it.
  const [prices, setPrices] = useState({ price: '', oldPrice: '' });
  const [rectangle, setRectangle] = useState('');
  const [square, setSquare] = useState('');
  // A price is whole units of the platform's currency (the API's integer), read as the reader's language writes it.
  const price = readWholeNumber(prices.price, { optional: true, price: true });
  const oldPrice = readWholeNumber(prices.oldPrice, { optional: true, price: true });
  const change = {
    ...(form.title !== ad.title ? { title: form.title, description: form.title } : {}),
    ...(form.url !== ad.url ? { url: form.url } : {}),
    ...(form.url_mobile !== ad.url_mobile ? { url_mobile: form.url_mobile } : {}),
    ...(rectangle ? { rectangle } : {}),
    ...(square ? { square } : {}),
    ...(price.ok && price.value !== null ? { price: price.value } : {}),
    ...(oldPrice.ok && oldPrice.value !== null ? { oldPrice: oldPrice.value } : {}),
  };
  const priceErrors = {
    price: price.ok ? undefined : price.message,
    oldPrice: oldPrice.ok ? undefined : oldPrice.message,
  };
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
  const text = (key: TextKey) => ({
    name: `${key}-${ad.id}`,
    value: form[key],
    // The headline is sent as both texts; a refusal of either is the headline's.
    error: key === 'title' ? (errors.title ?? errors.description) : errors[key],
    onChange: (event: { target: { value: string } }) => {
      setForm({ ...form, [key]: event.target.value });
      edited(key);
      if (key === 'title') edited('description');
    },
  });
  const [checked, setChecked] = useState(false);
  const pick = (name: string, setter: (value: string) => void) => async (event: { target: HTMLInputElement }) => {
    const file = event.target.files?.[0];
    setter(file ? await readAsDataUri(file) : '');
    edited(name);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    setChecked(true);
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
        <HeadlineField limit={headlineLimit} {...text('title')} />
        {ad.opis !== ad.title && <p className="hint">{t('adContent.otherDescription', { text: ad.opis })}</p>}
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
        <WholeNumberField
          label={t('adContent.newPrice')}
          name={`price-${ad.id}`}
          hint={ad.cost ? t('adContent.priceNow', { cost: ad.cost }) : t('adContent.priceNone')}
          value={prices.price}
          error={(checked ? priceErrors.price : undefined) ?? errors.price}
          onChange={(event) => {
            setPrices({ ...prices, price: event.target.value });
            setChecked(false);
            edited('price');
          }}
        />
        <WholeNumberField
          label={t('adContent.newOldPrice')}
          name={`old-price-${ad.id}`}
          hint={t('adContent.oldPriceHint')}
          value={prices.oldPrice}
          error={(checked ? priceErrors.oldPrice : undefined) ?? errors.oldPrice}
          onChange={(event) => {
            setPrices({ ...prices, oldPrice: event.target.value });
            setChecked(false);
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
        title={form.title}
        url={form.url}
        price={price.ok && price.value !== null ? String(price.value) : ad.cost}
      />
    </form>
  );
}
