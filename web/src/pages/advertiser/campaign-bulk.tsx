import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { count } from '../../format.ts';
import { translateNames } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';

/** Which campaigns of the list are ticked for a bulk change. */
export function useCampaignSelection() {
  const [chosen, setChosen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  };
  return { chosen, toggle, setAll: (ids: number[]) => setChosen(new Set(ids)), clear: () => setChosen(new Set()) };
}

/**
 * Switches on or off, archives or restores every ticked campaign in one request
 * (POST /advertiser/campaigns/bulk): all change or none does, and a refusal names each campaign.
 */
export function CampaignBulkBar({ chosen, onDone }: { chosen: ReadonlySet<number>; onDone: () => void }) {
  const { t } = useTranslation('advertiser');
  const queryClient = useQueryClient();
  const bulk = useMutation({
    mutationFn: (change: { active?: boolean; archived?: boolean }) =>
      data(api.POST('/api/advertiser/campaigns/bulk', { body: { ids: [...chosen], ...change } })),
    onSuccess: onDone,
    onSettled: () => queryClient.invalidateQueries({ queryKey: advertiserKeys.campaigns.all() }),
  });
  if (chosen.size === 0) return null;
  return (
    <>
      <fieldset className="toolbar bulk-bar">
        <legend className="visually-hidden">{t('bulk.legend')}</legend>
        <span>{t('bulk.chosen', { number: count(chosen.size) })}</span>
        <button type="button" onClick={() => bulk.mutate({ active: true })} disabled={bulk.isPending}>
          {t('bulk.switchOn')}
        </button>
        <button type="button" onClick={() => bulk.mutate({ active: false })} disabled={bulk.isPending}>
          {t('bulk.switchOff')}
        </button>
        <button type="button" onClick={() => bulk.mutate({ archived: true })} disabled={bulk.isPending}>
          {t('bulk.archive')}
        </button>
        {bulk.error && <Notice kind="error">{problem(bulk.error)}</Notice>}
      </fieldset>
      <BulkCoefficientForm chosen={chosen} />
    </>
  );
}

const TARGETS = {
  site: 'bulk.target.site',
  desktop: 'bulk.target.desktop',
  mobile: 'bulk.target.mobile',
  tablet: 'bulk.target.tablet',
} as const;

/**
 * One site's, block's or device's quality coefficient set on every ticked campaign in one request
 * (POST /advertiser/campaigns/multipliers/bulk): all change or none does.
 */
function BulkCoefficientForm({ chosen }: { chosen: ReadonlySet<number> }) {
  const { t } = useTranslation('advertiser');
  const queryClient = useQueryClient();
  const [target, setTarget] = useState<keyof typeof TARGETS>('site');
  const [site, setSite] = useState('');
  const [coef, setCoef] = useState('');
  const [local, setLocal] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (value: number) =>
      data(
        api.POST('/api/advertiser/campaigns/multipliers/bulk', {
          body: { ids: [...chosen], coef: value, ...(target === 'site' ? { site: site.trim() } : { device: target }) },
        }),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: advertiserKeys.traffic.all() }),
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    save.reset();
    // The API's decimal point, whatever the reader's language ("1,5" means 1.5 here: a coefficient is never grouped).
    const value = Number(coef.trim().replace(',', '.'));
    if (coef.trim() === '' || !Number.isFinite(value)) {
      setLocal(t('bulk.invalid'));
      return;
    }
    setLocal(null);
    save.mutate(value);
  };
  return (
    <form className="toolbar bulk-coefficient" onSubmit={submit} noValidate aria-label={t('bulk.form')}>
      <div className="stacked">
        <label htmlFor="bulk-target">{t('bulk.coefficientFor')}</label>
        <select id="bulk-target" value={target} onChange={(event) => setTarget(event.target.value as keyof typeof TARGETS)}>
          {Object.entries(translateNames(TARGETS, t)).map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      {target === 'site' && (
        <Field
          label={t('traffic.siteOrBlock')}
          name="bulk-site"
          hint={t('bulk.siteHint')}
          value={site}
          error={errors.site}
          onChange={(event) => {
            edited('site');
            setSite(event.target.value);
          }}
        />
      )}
      <Field
        label={t('figure.coefficient')}
        name="bulk-coef"
        inputMode="decimal"
        hint={t('bulk.coefHint')}
        value={coef}
        error={local ?? errors.coef}
        onChange={(event) => {
          setLocal(null);
          edited('coef');
          setCoef(event.target.value);
        }}
      />
      <button type="submit" disabled={save.isPending}>
        {t('traffic.form.submit')}
      </button>
      <span role="status">
        {save.isSuccess && t('bulk.setOn', { count: save.data.ids.length, campaigns: count(save.data.ids.length) })}
      </span>
      {(general || Object.keys(errors).some((field) => field.startsWith('ids'))) && (
        <Notice kind="error">{problem(save.error)}</Notice>
      )}
    </form>
  );
}
