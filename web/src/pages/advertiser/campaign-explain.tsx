import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, fieldErrors, isNotFound, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, fineMoney, percent } from '../../format.ts';
import { setQuery, useLocation } from '../../router.tsx';
import type { AdvertiserKey } from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';
import { CampaignHead, CampaignNotFound, useCampaign } from './campaign-nav.tsx';
import { BROWSER_CHOICES, type Choices, OS_CHOICES, useChoiceName } from './campaign-targeting.tsx';

/** A query value that is one of the choices, else '' (unknown). */
const chosen = (value: string | null, choices: Choices) => (choices.some(([choice]) => choice === value) ? (value ?? '') : '');

type Device = 'desktop' | 'mobile' | 'tablet';
const DEVICES: { value: Device; label: AdvertiserKey; inSentence: AdvertiserKey }[] = [
  { value: 'desktop', label: 'device.desktop', inSentence: 'traffic.deviceLower.desktop' },
  { value: 'mobile', label: 'device.phone', inSentence: 'traffic.deviceLower.mobile' },
  { value: 'tablet', label: 'device.tablet', inSentence: 'traffic.deviceLower.tablet' },
];

/** The API's reason codes in the advertiser's words (docs/adr/0019 lists what each means). */
export const REASON_TEXT: Record<string, AdvertiserKey> = {
  campaign_paused: 'explain.reason.campaign_paused',
  campaign_not_approved: 'explain.reason.campaign_not_approved',
  ad_paused: 'explain.reason.ad_paused',
  moderation: 'explain.reason.moderation',
  not_indexed: 'explain.reason.not_indexed',
  balance: 'explain.reason.balance',
  budget: 'explain.reason.budget',
  daily_limit: 'explain.reason.daily_limit',
  geo: 'explain.reason.geo',
  device: 'explain.reason.device',
  audience: 'explain.reason.audience',
  page_repeat: 'explain.reason.page_repeat',
  frequency: 'explain.reason.frequency',
  schedule: 'explain.reason.schedule',
  total_budget: 'explain.reason.total_budget',
  flight: 'explain.reason.flight',
  pacing: 'explain.reason.pacing',
  os: 'explain.reason.os',
  browser: 'explain.reason.browser',
  site_list: 'explain.reason.site_list',
  category: 'explain.reason.category',
  floor: 'explain.reason.floor',
  filtered: 'explain.reason.filtered',
};

/**
 * "Why does (or doesn't) my ad show?": each ad of the campaign for one impression of a block,
 * eligible with its effective bid, score, rank, price and the effective bid that would show it,
 * or filtered with the reasons; nothing of other advertisers' ads. The
 * answer comes from the serving engine's own index, so it is what serving would do now.
 */
export function CampaignExplainPage({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  const { query } = useLocation();
  const block = query.get('block') ?? '';
  const device = (DEVICES.some((entry) => entry.value === query.get('device')) ? query.get('device') : 'desktop') as Device;
  const country = query.get('country') ?? '';
  // The visitor's system and browser, as the campaign's targets name them: '' is a visitor of unknown ones.
  const os = chosen(query.get('os'), OS_CHOICES);
  const browser = chosen(query.get('browser'), BROWSER_CHOICES);
  const [form, setForm] = useState({ block, device, country, os, browser });
  const words = useChoiceName();

  const campaign = useCampaign(id);
  const explanation = useQuery({
    queryKey: advertiserKeys.explain(id, { block, device, country, os, browser }),
    queryFn: () =>
      data(
        api.GET('/api/advertiser/campaigns/{id}/explain', {
          params: {
            path: { id },
            query: {
              block: Number(block),
              device,
              ...(country ? { country } : {}),
              ...(os ? { os } : {}),
              ...(browser ? { browser } : {}),
            },
          },
        }),
      ),
    enabled: campaign.isSuccess && /^\d+$/.test(block),
    retry: false,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = { ...form, block: form.block.trim(), country: form.country.trim().toUpperCase() };
    // The same impression again asks serving again: the answer is about now, and now has moved.
    const same =
      wanted.block === block &&
      wanted.device === device &&
      wanted.country === country &&
      wanted.os === os &&
      wanted.browser === browser;
    if (same) void explanation.refetch();
    else setQuery(wanted);
  };
  const errors = fieldErrors(explanation.error);

  if (isNotFound(campaign.error)) {
    return <CampaignNotFound id={id} />;
  }
  const result = explanation.data;
  const reasonText = (reason: string) => {
    const key = REASON_TEXT[reason];
    return key ? t(key) : reason;
  };
  return (
    <>
      <CampaignHead id={id} title={campaign.data?.title} current={'/explain'} />
      <p className="lead">{t('explain.lead')}</p>
      <form className="card inline-form" onSubmit={submit} noValidate aria-label={t('explain.form')}>
        <Field
          label={t('explain.block')}
          name="block"
          inputMode="numeric"
          required
          value={form.block}
          error={errors.block}
          onChange={(event) => setForm({ ...form, block: event.target.value })}
        />
        <Field label={t('explain.device')} name="device">
          <select
            id="field-device"
            name="device"
            value={form.device}
            onChange={(event) => setForm({ ...form, device: event.target.value as Device })}
          >
            {DEVICES.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {t(entry.label)}
              </option>
            ))}
          </select>
        </Field>
        {(
          [
            ['os', t('explain.os'), OS_CHOICES],
            ['browser', t('explain.browser'), BROWSER_CHOICES],
          ] as const
        ).map(([name, label, choices]) => (
          <Field key={name} label={label} name={name} hint={name === 'os' ? t('explain.agentHint') : undefined}>
            <select
              id={`field-${name}`}
              name={name}
              value={form[name]}
              aria-describedby={name === 'os' ? 'os-hint' : undefined}
              onChange={(event) => setForm({ ...form, [name]: event.target.value })}
            >
              <option value="">{t('explain.unknownAgent')}</option>
              {choices.map(([choice, text]) => (
                <option key={choice} value={choice}>
                  {words(text)}
                </option>
              ))}
            </select>
          </Field>
        ))}
        <Field
          label={t('explain.country')}
          name="country"
          hint={t('explain.countryHint')}
          maxLength={2}
          value={form.country}
          error={errors.country}
          onChange={(event) => setForm({ ...form, country: event.target.value })}
        />
        <div className="actions">
          <button type="submit" className="primary">
            {t('explain.submit')}
          </button>
        </div>
      </form>
      {(campaign.error || (explanation.error && Object.keys(errors).length === 0)) && (
        <Notice kind="error">{problem(campaign.error ?? explanation.error)}</Notice>
      )}
      {explanation.isFetching && <p className="loading">{t('explain.asking')}</p>}
      {result && (
        <section className="card" aria-labelledby="explain-title">
          <h2 id="explain-title">
            {t('explain.heading', {
              block: result.block,
              device: t(DEVICES.find((entry) => entry.value === result.device)?.inSentence ?? 'traffic.deviceLower.desktop'),
              country: result.country || t('explain.unknownCountry'),
            })}
          </h2>
          <p>{t('explain.teasers', { count: result.teaserCount, teasers: count(result.teaserCount) })}</p>
          <ScrollRegion label={t('explain.table')}>
            <table className="explain">
              <thead>
                <tr>
                  <th scope="col">{t('explain.ad')}</th>
                  <th scope="col">{t('explain.outcome')}</th>
                  <th scope="col" className="num">
                    {t('figure.bid')}
                  </th>
                  <th scope="col" className="num">
                    {t('explain.coefficients')}
                  </th>
                  <th scope="col" className="num">
                    {t('explain.effectiveBid')}
                  </th>
                  <th scope="col" className="num">
                    {t('explain.ctrEstimate')}
                  </th>
                  <th scope="col" className="num">
                    {t('explain.score')}
                  </th>
                  <th scope="col" className="num">
                    {t('explain.clickPrice')}
                  </th>
                  <th scope="col" className="num">
                    {t('explain.priceToBeat')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {result.ads.map((ad) => (
                  <tr key={ad.id}>
                    <th scope="row">{ad.title}</th>
                    <td>
                      {ad.status === 'eligible' ? (
                        <span className={ad.wins ? 'outcome wins' : 'outcome'}>
                          {t(ad.wins ? 'explain.shows' : 'explain.competes', { rank: ad.rank })}
                        </span>
                      ) : (
                        <ul className="reasons">
                          {ad.reasons.map((reason) => (
                            <li key={reason}>{reasonText(reason)}</li>
                          ))}
                        </ul>
                      )}
                    </td>
                    <td className="num">{fineMoney(ad.bid)}</td>
                    <td className="num">
                      {ad.placementCoefficient === null ? '–' : `× ${ad.placementCoefficient} × ${ad.deviceCoefficient}`}
                    </td>
                    <td className="num">{ad.effectiveBid === null ? '–' : fineMoney(ad.effectiveBid)}</td>
                    <td className="num">{ad.ctr === null ? '–' : percent(ad.ctr * 100)}</td>
                    <td className="num">{ad.score === null ? '–' : fineMoney(ad.score)}</td>
                    <td className="num">{ad.price === null ? '–' : fineMoney(ad.price)}</td>
                    <td className="num">{ad.priceToBeat === null ? '–' : fineMoney(ad.priceToBeat)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {result.ads.length === 0 && <p className="empty">{t('explain.noAds')}</p>}
          </ScrollRegion>
        </section>
      )}
    </>
  );
}
