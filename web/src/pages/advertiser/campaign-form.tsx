import type { operations } from '@nativa/sdk';
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, FIELD_LIMITS, problem, useFieldErrors } from '../../api.ts';
import { productCategoryName } from '../../components/category-names.ts';
import { Field, FormActions, Notice } from '../../components/controls.tsx';
import { CountryPicker } from '../../components/country-picker.tsx';
import { MoneyField, WholeNumberField } from '../../components/number-fields.tsx';
import { amountInput, currentPlatform, readMoney, readWholeNumber } from '../../format.ts';
import { advertiserKeys } from './advertiser-keys.ts';
import { type DayHours, toDays, toSchedule, useScheduleProblem, WeekHours } from './campaign-delivery.tsx';
import { BROWSER_CHOICES, DEVICE_CHOICES, OS_CHOICES, siteList, TargetChoices, wallTime } from './campaign-targeting.tsx';

/** What the form shows of a stored campaign (the API's Campaign); absent on a new one. */
export interface CampaignSettingsData {
  title: string;
  category_id: number | null;
  geo: string[];
  maxmoney: number;
  maxclicks: number;
  frequencyCap?: number;
  schedule?: number[];
  timeZone?: string;
  startsAt?: string;
  endsAt?: string;
  totalBudget?: number;
  pacing?: 'even';
  devices?: string[];
  os?: string[];
  browsers?: string[];
  siteAllow?: (number | string)[];
  siteBlock?: (number | string)[];
}

/** The body of a change (`PUT /advertiser/campaigns/{id}`); a new campaign adds its title, category and kind. */
type CampaignChange = NonNullable<operations['updateCampaign']['requestBody']>['content']['application/json'];

type TextName =
  | 'title'
  | 'category'
  | 'maxmoney'
  | 'maxclicks'
  | 'frequencyCap'
  | 'timeZone'
  | 'startsAt'
  | 'endsAt'
  | 'totalBudget'
  | 'pacing'
  | 'siteAllow'
  | 'siteBlock';

function initialForm(campaign: CampaignSettingsData | undefined): Record<TextName, string> {
  const zone = campaign?.timeZone ?? currentPlatform().timeZone;
  return {
    title: campaign?.title ?? '',
    category: campaign?.category_id == null ? '' : String(campaign.category_id),
    maxmoney: campaign && campaign.maxmoney > 0 ? amountInput(campaign.maxmoney) : '',
    maxclicks: campaign && campaign.maxclicks > 0 ? String(campaign.maxclicks) : '',
    frequencyCap: campaign?.frequencyCap === undefined ? '' : String(campaign.frequencyCap),
    timeZone: campaign?.timeZone ?? '',
    startsAt: wallTime(campaign?.startsAt, zone),
    endsAt: wallTime(campaign?.endsAt, zone),
    totalBudget: campaign?.totalBudget === undefined ? '' : amountInput(campaign.totalBudget),
    pacing: campaign?.pacing ?? 'asap',
    siteAllow: (campaign?.siteAllow ?? []).join(', '),
    siteBlock: (campaign?.siteBlock ?? []).join(', '),
  };
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, at) => item === b[at]);

/**
 * Everything a campaign is set with, in one form with one Save, the same to create a campaign and
 * to change one: basics (title, category), schedule and budget (flight dates, budgets, daily
 * limits, pacing, the cap and hours of the week) and targeting (countries, devices, systems,
 * browsers, sites). Numbers are read by the reader's language (readMoney, readWholeNumber) and
 * refused in the form's words before anything is sent. A changed campaign is sent its title,
 * category and countries only when they changed (a new category sends it back to moderation,
 * which the form says before saving); the rest is sent as shown.
 */
export function CampaignForm({
  campaignId,
  campaign,
  onSaved,
  onCancel,
}: {
  campaignId?: number;
  campaign?: CampaignSettingsData;
  onSaved: (id: number) => void;
  /** A new campaign's form can be closed unsent. */
  onCancel?: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const creating = campaignId === undefined;
  const categories = useQuery({
    queryKey: advertiserKeys.categories(),
    queryFn: () => data(api.GET('/api/advertiser/categories')),
  });
  const [form, setForm] = useState(() => initialForm(campaign));
  const [geo, setGeo] = useState<string[]>(campaign?.geo ?? []);
  const [targets, setTargets] = useState({
    devices: campaign?.devices ?? [],
    os: (campaign?.os ?? []).filter((target) => !target.includes(':')),
    browsers: (campaign?.browsers ?? []).filter((target) => !target.includes(':')),
  });
  // Targets of one version (`android:14`), set through the API: the form has no boxes for them, so
  // it shows them and sends them back as they are rather than dropping them on save.
  const versioned = [...(campaign?.os ?? []), ...(campaign?.browsers ?? [])].filter((target) => target.includes(':'));
  const versionedOf = (list: string[] | undefined) => (list ?? []).filter((target) => target.includes(':'));
  const week = toDays(campaign?.schedule);
  const [days, setDays] = useState<DayHours[]>(week.days);
  const [isRetarget, setRetarget] = useState(false);
  const [local, setLocal] = useState<Partial<Record<string, string>>>({});
  const [saved, setSaved] = useState(false);
  const scheduleProblem = useScheduleProblem(days);

  const categoryChanged = !creating && form.category !== '' && Number(form.category) !== campaign?.category_id;
  const save = useMutation({
    mutationFn: async (body: CampaignChange) => {
      if (campaignId === undefined) {
        const created = await data(
          api.POST('/api/advertiser/campaigns', {
            body: { ...body, title: form.title, category_id: Number(form.category), isRetarget },
          }),
        );
        return created.id;
      }
      await data(api.PUT('/api/advertiser/campaigns/{id}', { params: { path: { id: campaignId } }, body }));
      return campaignId;
    },
    onSuccess: (id) => {
      setSaved(true);
      onSaved(id);
    },
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const shown = (name: string) => local[name] ?? errors[name];
  const change = (name: TextName) => (event: { target: { value: string } }) => {
    setForm({ ...form, [name]: event.target.value });
    setLocal({ ...local, [name]: undefined });
    setSaved(false);
    edited(name === 'category' ? 'category_id' : name);
  };
  const text = (name: TextName) => ({ name, value: form[name], error: shown(name), onChange: change(name) });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    setSaved(false);
    const maxmoney = readMoney(form.maxmoney, { optional: true });
    const maxclicks = readWholeNumber(form.maxclicks, { optional: true });
    const totalBudget = readMoney(form.totalBudget, { optional: true });
    const frequencyCap = readWholeNumber(form.frequencyCap, { optional: true });
    const problems: Record<string, string> = {};
    if (!maxmoney.ok) problems.maxmoney = maxmoney.message;
    if (!maxclicks.ok) problems.maxclicks = maxclicks.message;
    if (!totalBudget.ok) problems.totalBudget = totalBudget.message;
    if (!frequencyCap.ok) problems.frequencyCap = frequencyCap.message;
    // datetime-local values compare as text: both are YYYY-MM-DDTHH:mm on the campaign's clock.
    if (form.startsAt !== '' && form.endsAt !== '' && form.endsAt <= form.startsAt) problems.endsAt = t('form.endsBeforeStart');
    if (scheduleProblem !== undefined) problems.schedule = scheduleProblem;
    setLocal(problems);
    if (!maxmoney.ok || !maxclicks.ok || !totalBudget.ok || !frequencyCap.ok || Object.keys(problems).length > 0) return;
    const body: CampaignChange = {
      maxmoney: maxmoney.value ?? 0,
      maxclicks: maxclicks.value ?? 0,
      frequencyCap: frequencyCap.value ?? 0,
      schedule: toSchedule(days),
      timeZone: form.timeZone.trim() === '' ? null : form.timeZone.trim(),
      startsAt: form.startsAt === '' ? null : form.startsAt,
      endsAt: form.endsAt === '' ? null : form.endsAt,
      totalBudget: totalBudget.value ?? 0,
      pacing: form.pacing === 'even' ? 'even' : 'asap',
      devices: targets.devices as ('desktop' | 'mobile' | 'tablet')[],
      os: [...targets.os, ...versionedOf(campaign?.os)],
      browsers: [...targets.browsers, ...versionedOf(campaign?.browsers)],
      siteAllow: siteList(form.siteAllow),
      siteBlock: siteList(form.siteBlock),
    };
    if (creating) body.geo = geo;
    else {
      if (form.title !== campaign?.title) body.title = form.title;
      if (categoryChanged) body.category_id = Number(form.category);
      if (!sameList(geo, campaign?.geo ?? [])) body.geo = geo;
    }
    save.mutate(body);
  };
  const zone = form.timeZone.trim() || campaign?.timeZone || currentPlatform().timeZone;
  const setTarget = (name: keyof typeof targets) => (value: string[]) => {
    setTargets({ ...targets, [name]: value });
    setSaved(false);
    edited(name);
  };
  const formName = creating ? t('campaigns.new') : t('campaignForm.title');
  return (
    <form className="card campaign-form delivery control" onSubmit={submit} noValidate aria-label={formName}>
      <h2>{formName}</h2>
      {!creating && <p className="hint">{t('campaignForm.hint')}</p>}
      {general && <Notice kind="error">{problem(save.error)}</Notice>}
      {saved && !save.isPending && !creating && <Notice kind="ok">{t('delivery.saved')}</Notice>}

      <section aria-labelledby="campaign-basics">
        <h3 id="campaign-basics">{t('campaignForm.basics')}</h3>
        <div className="inline-form">
          <Field
            label={t('campaigns.form.title')}
            required
            maxLength={FIELD_LIMITS.updateCampaign.title.maxLength}
            {...text('title')}
          />
          <Field label={t('campaigns.form.category')} name="campaign-category" error={errors.category_id}>
            <select
              id="field-campaign-category"
              required
              value={form.category}
              aria-describedby={creating ? undefined : 'campaign-category-note'}
              onChange={change('category')}
            >
              {(creating || campaign?.category_id == null) && <option value="">{t('campaigns.form.choose')}</option>}
              {(categories.data ?? [])
                .filter((category) => category.parent_id === null)
                .map((category) => (
                  <option key={category.id} value={category.id}>
                    {productCategoryName(category)}
                  </option>
                ))}
            </select>
          </Field>
          {creating && (
            <label className="check">
              <input type="checkbox" checked={isRetarget} onChange={(event) => setRetarget(event.target.checked)} />
              {t('campaigns.form.retargeting')}
            </label>
          )}
        </div>
        {!creating && (
          <p className={categoryChanged ? 'hint moderation-note' : 'hint'} id="campaign-category-note">
            {categoryChanged ? (
              <Trans t={t} i18nKey="settings.categoryNoteChanged" components={{ strong: <strong /> }} />
            ) : (
              t('settings.categoryNote')
            )}
          </p>
        )}
      </section>

      <section aria-labelledby="campaign-schedule">
        <h3 id="campaign-schedule">{t('campaignForm.schedule')}</h3>
        <div className="inline-form">
          <Field
            label={t('control.starts')}
            type="datetime-local"
            hint={t('control.startsHint', { zone })}
            {...text('startsAt')}
          />
          <Field label={t('control.ends')} type="datetime-local" hint={t('control.endsHint')} {...text('endsAt')} />
          <MoneyField label={t('control.budget')} hint={t('control.budgetHint')} {...text('totalBudget')} />
          <MoneyField label={t('campaigns.form.dailySpend')} hint={t('limits.noLimit')} {...text('maxmoney')} />
          <WholeNumberField label={t('campaigns.form.dailyClicks')} hint={t('limits.noLimit')} {...text('maxclicks')} />
          <Field label={t('control.pacing')} name="pacing" error={shown('pacing')}>
            <select id="field-pacing" value={form.pacing} onChange={change('pacing')}>
              <option value="asap">{t('control.pacing.asap')}</option>
              <option value="even">{t('control.pacing.even')}</option>
            </select>
          </Field>
        </div>
        <div className="inline-form">
          <WholeNumberField label={t('delivery.cap')} hint={t('delivery.capHint')} {...text('frequencyCap')} />
          <Field
            label={t('delivery.zone')}
            hint={t('delivery.zoneHint', { zone: currentPlatform().timeZone })}
            {...text('timeZone')}
          />
        </div>
        <WeekHours
          days={days}
          split={week.split}
          error={shown('schedule')}
          onChange={(next) => {
            setDays(next);
            setLocal({ ...local, schedule: undefined });
            setSaved(false);
            edited('schedule');
          }}
        />
      </section>

      <section aria-labelledby="campaign-targeting">
        <h3 id="campaign-targeting">{t('campaignForm.targeting')}</h3>
        <CountryPicker
          label={t('campaigns.form.countries')}
          value={geo}
          onChange={(codes) => {
            setGeo(codes);
            setSaved(false);
            edited('geo');
          }}
          error={errors.geo}
        />
        <div className="inline-form">
          <TargetChoices
            name="devices"
            legend={t('control.devices')}
            choices={DEVICE_CHOICES}
            value={targets.devices}
            error={errors.devices}
            onChange={setTarget('devices')}
          />
          <TargetChoices
            name="os"
            legend={t('control.os')}
            choices={OS_CHOICES}
            value={targets.os}
            error={errors.os}
            onChange={setTarget('os')}
          />
          <TargetChoices
            name="browsers"
            legend={t('control.browsers')}
            choices={BROWSER_CHOICES}
            value={targets.browsers}
            error={errors.browsers}
            onChange={setTarget('browsers')}
          />
        </div>
        {versioned.length > 0 && <p className="hint">{t('control.versionedTargets', { list: versioned.join(', ') })}</p>}
        <div className="inline-form">
          <Field label={t('control.siteAllow')} hint={t('control.siteAllowHint')} {...text('siteAllow')} />
          <Field label={t('control.siteBlock')} hint={t('control.siteBlockHint')} {...text('siteBlock')} />
        </div>
      </section>

      {onCancel ? (
        <FormActions submit={t('campaigns.form.submit')} pending={save.isPending} onCancel={onCancel} />
      ) : (
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? t('action.saving') : categoryChanged ? t('adContent.submit') : t('action.save')}
          </button>
        </div>
      )}
    </form>
  );
}
