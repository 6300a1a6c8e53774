import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, FIELD_LIMITS, problem, useFieldErrors } from '../../api.ts';
import { productCategoryName } from '../../components/category-names.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { CountryPicker } from '../../components/country-picker.tsx';

/**
 * A campaign's title, category and countries after creation (the API's
 * `PUT /advertiser/campaigns/{id}`). A new category sends the campaign back to moderation (a
 * moderator checks its ads against it); a title or countries do not. The form says which before
 * saving, and sends only what changed.
 */
export function CampaignSettings({
  campaignId,
  title,
  categoryId,
  geo,
  onSaved,
}: {
  campaignId: number;
  title: string;
  categoryId: number | null;
  geo: string[];
  onSaved: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const categories = useQuery({ queryKey: ['categories'], queryFn: () => data(api.GET('/api/advertiser/categories')) });
  const [form, setForm] = useState({ title, category: categoryId === null ? '' : String(categoryId) });
  const [countries, setCountries] = useState<string[]>(geo);
  const [saved, setSaved] = useState(false);
  const categoryChanged = form.category !== '' && Number(form.category) !== categoryId;
  const geoChanged = countries.length !== geo.length || countries.some((code, index) => code !== geo[index]);
  const change = {
    ...(form.title !== title ? { title: form.title } : {}),
    ...(categoryChanged ? { category_id: Number(form.category) } : {}),
    ...(geoChanged ? { geo: countries } : {}),
  };
  const save = useMutation({
    mutationFn: () => data(api.PUT('/api/advertiser/campaigns/{id}', { params: { path: { id: campaignId } }, body: change })),
    onSuccess: () => {
      setSaved(true);
      onSaved();
    },
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    setSaved(false);
    if (Object.keys(change).length > 0) save.mutate();
  };
  return (
    <form className="card delivery" onSubmit={submit} noValidate aria-labelledby="settings-title">
      <h2 id="settings-title">{t('settings.title')}</h2>
      <p className="hint">{t('settings.hint')}</p>
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {saved && !save.isPending && <Notice kind="ok">{t('action.saved')}</Notice>}
      <div className="form-grid">
        <Field
          label={t('settings.campaignTitle')}
          name="campaign-title"
          required
          maxLength={FIELD_LIMITS.updateCampaign.title.maxLength}
          value={form.title}
          error={errors.title}
          onChange={(event) => {
            setForm({ ...form, title: event.target.value });
            edited('title');
          }}
        />
        <Field label={t('campaigns.form.category')} name="campaign-category" error={errors.category_id}>
          <select
            id="field-campaign-category"
            value={form.category}
            aria-describedby="campaign-category-note"
            onChange={(event) => {
              setForm({ ...form, category: event.target.value });
              edited('category_id');
            }}
          >
            {categoryId === null && <option value="">{t('campaigns.form.choose')}</option>}
            {(categories.data ?? [])
              .filter((category) => category.parent_id === null)
              .map((category) => (
                <option key={category.id} value={category.id}>
                  {productCategoryName(category)}
                </option>
              ))}
          </select>
        </Field>
        <p className={categoryChanged ? 'hint moderation-note' : 'hint'} id="campaign-category-note">
          {categoryChanged ? (
            <Trans t={t} i18nKey="settings.categoryNoteChanged" components={{ strong: <strong /> }} />
          ) : (
            t('settings.categoryNote')
          )}
        </p>
        <CountryPicker
          label={t('campaigns.form.countries')}
          value={countries}
          onChange={(codes) => {
            setCountries(codes);
            edited('geo');
          }}
          error={errors.geo}
        />
      </div>
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {categoryChanged ? t('adContent.submit') : t('action.save')}
        </button>
      </div>
    </form>
  );
}
