import { pages } from '@nativa/sdk';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, FIELD_LIMITS, isNotFound, noRetryOnRefusal, problem, useFieldErrors, useFormFields } from '../../api.ts';
import { DailyChart } from '../../components/chart.tsx';
import { CompareToggle, change, previousPeriod, useComparing } from '../../components/compare.tsx';
import { Field, FormActions, Notice, Switch } from '../../components/controls.tsx';
import { FigureCells, FigureHeads, Tile } from '../../components/figures.tsx';
import { GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { ListOrderControls, useListOrder } from '../../components/list-order.tsx';
import { MoneyField, WholeNumberField } from '../../components/number-fields.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { TeaserPreview } from '../../components/teaser-preview.tsx';
import { amountInput, count, dayLabel, fineMoney, money, percent, readMoney, readWholeNumber } from '../../format.ts';
import { ModerationReason } from '../shared/moderation-reason.tsx';
import { AdContentForm } from './ad-content.tsx';
import { AdPreview, HeadlineField, LandingPageField } from './ad-fields.tsx';
import {
  AD_STATUS,
  CAMPAIGN_STATUS,
  statusName,
  translateNames,
  useDailyStatistics,
  useSpendAndClicksSeries,
  useTotals,
} from './advertiser-data.ts';
import { advertiserKeys } from './advertiser-keys.ts';
import { CampaignForm } from './campaign-form.tsx';
import { CampaignHead, CampaignNotFound } from './campaign-nav.tsx';
import { DuplicateCampaign } from './duplicate-campaign.tsx';
import { readAsDataUri } from './read-image.ts';

/** The orders of the ad list (`sort` of the API and of the address); '' is the API's default, oldest first. */
const AD_SORTS = {
  '': 'sort.oldest',
  '-created': 'sort.newest',
  title: 'sort.titleAz',
  '-stavka': 'campaign.sort.bidHigh',
  stavka: 'campaign.sort.bidLow',
} as const;

/** A campaign's days: what showed, what it cost and what it brought, without the ratios. */
const DAILY_FIGURES = ['views', 'clicks', 'money', 'orders'] as const;

export function CampaignPage({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  const period = usePeriod();
  const goal = useGoal();
  const queryClient = useQueryClient();
  const campaign = useQuery({
    queryKey: advertiserKeys.campaign.figures(id, period, goal),
    queryFn: () =>
      data(
        api.GET('/api/advertiser/campaigns/{id}', {
          params: {
            path: { id },
            query: { dateFrom: period.from, dateTo: period.to, archived: 0, targetId: goal },
          },
        }),
      ),
    retry: noRetryOnRefusal,
  });
  // The campaign's ads, searched and sorted by the server (GET /advertiser/offers), every page.
  const order = useListOrder(AD_SORTS);
  const ads = useQuery({
    queryKey: advertiserKeys.campaign.ads(id, period, goal, order.key),
    queryFn: async () => {
      const all = [];
      for await (const ad of pages((page) =>
        api.GET('/api/advertiser/offers', {
          params: {
            query: {
              campaignId: id,
              dateFrom: period.from,
              dateTo: period.to,
              targetId: goal,
              ...order.query,
              page,
              'per-page': 100,
            },
          },
        }),
      ))
        all.push(ad);
      return all;
    },
    enabled: campaign.isSuccess,
  });
  const daily = useDailyStatistics(period, String(id), goal);
  // The previous period of the same length, while comparing; not comparing, the daily query is the page's own again.
  const comparing = useComparing();
  const before = comparing ? previousPeriod(period) : period;
  const previousDaily = useDailyStatistics(before, String(id), goal);
  const previousTotals = useTotals(before, String(id), goal, comparing);
  const was = comparing ? previousTotals.data : undefined;
  const refresh = () => queryClient.invalidateQueries({ queryKey: advertiserKeys.campaign.all(id) });
  const switchAd = useMutation({
    mutationFn: ({ adId, active }: { adId: number; active: boolean }) =>
      api.PUT('/api/advertiser/offers/{id}', { params: { path: { id: adId } }, body: { active } }),
    onSettled: refresh,
  });
  const deleteAd = useMutation({
    mutationFn: (adId: number) => api.DELETE('/api/advertiser/offers/{id}', { params: { path: { id: adId } } }),
    onSettled: refresh,
  });
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);
  const series = useSpendAndClicksSeries(daily.data, comparing ? previousDaily.data : undefined);

  if (isNotFound(campaign.error)) {
    return <CampaignNotFound id={id} />;
  }
  const current = campaign.data;
  const offers = ads.data ?? [];
  return (
    <>
      <CampaignHead id={id} title={current?.title} current={''}>
        <GoalPicker />
        <PeriodPicker />
        <CompareToggle />
        <DuplicateCampaign id={id} />
      </CampaignHead>
      {campaign.error && <Notice kind="error">{problem(campaign.error)}</Notice>}
      {current && (
        <ModerationReason
          what="campaign"
          reason={current.moderationReason}
          rejected={current.status === 2}
          resubmit={() => api.POST('/api/advertiser/campaigns/resubmit/{id}', { params: { path: { id } } })}
          onResubmitted={refresh}
        />
      )}
      {current && (
        <section className="tiles" aria-label={t('tiles.label')}>
          <div className="tile">
            <span className="tile-label">{t('figure.status')}</span>
            <strong>{statusName(t, CAMPAIGN_STATUS, current.status)}</strong>
          </div>
          <Tile label={t('figure.spend')} value={money(current.money)} note={change(current.money, was?.money)} />
          <Tile label={t('figure.clicks')} value={count(current.clicks)} note={change(current.clicks, was?.clicks)} />
          <Tile label="CTR" value={percent(current.ctr)} note={change(current.ctr, was?.ctr)} />
          <Tile label={goalNoun(goal)} value={count(current.orders)} note={change(current.orders, was?.orders)} />
          <Tile label="CR" value={percent(current.cr)} note={change(current.cr, was?.cr)} />
          <div className="tile">
            <span className="tile-label">CPO</span>
            <strong>{fineMoney(current.cpo)}</strong>
          </div>
        </section>
      )}

      {current && <SpendNote clicks={current.clicks} spend={current.money} />}

      <section aria-labelledby="ads-title">
        <div className="section-head">
          <h2 id="ads-title">{t('campaign.ads.title')}</h2>
          {current && !current.archived && (
            <button type="button" className="primary" onClick={() => setAdding(!adding)} aria-expanded={adding}>
              {t('adForm.new')}
            </button>
          )}
        </div>
        {adding && current && (
          <CreateAd
            campaignId={id}
            headlineLimit={headlineLimitOf(current.geo)}
            onDone={() => setAdding(false)}
            onCreated={refresh}
          />
        )}
        <div className="toolbar">
          <ListOrderControls
            subject={t('campaign.ads.subject')}
            placeholder={t('campaign.ads.search')}
            sorts={translateNames(AD_SORTS, t)}
          />
        </div>
        {(ads.error || switchAd.error || deleteAd.error) && (
          <Notice kind="error">{problem(ads.error ?? switchAd.error ?? deleteAd.error)}</Notice>
        )}
        {ads.isSuccess && offers.length === 0 && (
          <p className="empty">{order.query.q ? t('campaign.ads.noMatch') : t('campaign.ads.empty')}</p>
        )}
        <ul className="ads">
          {offers.map((ad) => (
            <li key={ad.id} className={editing === ad.id ? 'card ad editing' : 'card ad'}>
              <TeaserPreview
                square={ad.img?.url ?? null}
                wide={ad.img_wide?.url ?? null}
                title={ad.title}
                url={ad.url}
                price={ad.cost}
                label={t('campaign.ad.preview', { title: ad.title })}
              />
              <div className="ad-facts">
                <div className="ad-row">
                  <Switch
                    checked={ad.active}
                    label={t('campaign.ad.on', { title: ad.title })}
                    onChange={(active) => switchAd.mutate({ adId: ad.id, active })}
                  />
                  <span className={`status s${ad.status}`}>{statusName(t, AD_STATUS, ad.status)}</span>
                </div>
                <ModerationReason
                  what="ad"
                  reason={ad.moderationReason}
                  rejected={ad.status === 2}
                  resubmit={() => api.POST('/api/advertiser/offers/resubmit/{id}', { params: { path: { id: ad.id } } })}
                  onResubmitted={refresh}
                />
                <dl>
                  <dt>{t('figure.bid')}</dt>
                  <dd>{fineMoney(ad.stavka)}</dd>
                  <dt>{t('figure.clicks')}</dt>
                  <dd>{count(ad.clicks)}</dd>
                  <dt>{t('figure.spend')}</dt>
                  <dd>{money(ad.money)}</dd>
                  <dt>CTR</dt>
                  <dd>{percent(ad.ctr)}</dd>
                  <dt>{goalNoun(goal)}</dt>
                  <dd>{count(ad.orders)}</dd>
                  <dt>CR</dt>
                  <dd>{percent(ad.cr)}</dd>
                </dl>
                <BidForm adId={ad.id} title={ad.title} bid={ad.stavka} onSaved={refresh} />
                {current && !current.archived && (
                  <button
                    type="button"
                    className="link"
                    aria-expanded={editing === ad.id}
                    onClick={() => setEditing(editing === ad.id ? null : ad.id)}
                  >
                    <Trans
                      t={t}
                      i18nKey="campaign.ad.editContent"
                      values={{ title: ad.title }}
                      components={{ hidden: <span className="visually-hidden" /> }}
                    />
                  </button>
                )}{' '}
                <button
                  type="button"
                  className="link danger"
                  onClick={() => window.confirm(t('campaign.ad.confirmDelete', { title: ad.title })) && deleteAd.mutate(ad.id)}
                >
                  <Trans
                    t={t}
                    i18nKey="campaign.ad.delete"
                    values={{ title: ad.title }}
                    components={{ hidden: <span className="visually-hidden" /> }}
                  />
                </button>
              </div>
              {editing === ad.id && current && (
                <AdContentForm
                  ad={ad}
                  headlineLimit={headlineLimitOf(current.geo)}
                  onDone={() => setEditing(null)}
                  onSaved={refresh}
                />
              )}
            </li>
          ))}
        </ul>
      </section>

      {current && !current.archived && <CampaignForm key={id} campaignId={id} campaign={current} onSaved={refresh} />}

      <section className="card" aria-labelledby="daily-title">
        <h2 id="daily-title">{t('campaign.daily.title')}</h2>
        {daily.data && <DailyChart days={daily.data.days} series={series} label={t('campaign.daily.chart')} />}
        {daily.data && (
          <ScrollRegion label={t('campaign.daily.table')}>
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('figure.day')}</th>
                  <FigureHeads figures={DAILY_FIGURES} goal={goalNoun(goal)} />
                </tr>
              </thead>
              <tbody>
                {daily.data.days
                  .map((day, index) => ({
                    day,
                    views: daily.data?.views[index] ?? 0,
                    clicks: daily.data?.clicks[index] ?? 0,
                    money: daily.data?.money[index] ?? 0,
                    orders: daily.data?.orders[index] ?? 0,
                  }))
                  .reverse()
                  .filter((row) => row.views + row.clicks > 0)
                  .map((row) => (
                    <tr key={row.day}>
                      <th scope="row">{dayLabel(row.day)}</th>
                      <FigureCells figures={DAILY_FIGURES} row={row} />
                    </tr>
                  ))}
              </tbody>
            </table>
            {daily.data.views.every((value) => value === 0) && <p className="empty">{t('campaign.daily.noViews')}</p>}
          </ScrollRegion>
        )}
      </section>
    </>
  );
}

/** An ad as a block on a publisher's page shows it: picture, title, price line. */
/**
 * An ad's bid, changed in place. A bid is not content: it applies at once and the ad keeps its
 * moderation status (the API's `PUT /advertiser/offers/{id}` with `clickPrice`); the form says so.
 */
function BidForm({ adId, title, bid, onSaved }: { adId: number; title: string; bid: number; onSaved: () => void }) {
  const { t } = useTranslation('advertiser');
  const [value, setValue] = useState(amountInput(bid));
  const [local, setLocal] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (clickPrice: string) =>
      api.PUT('/api/advertiser/offers/{id}', { params: { path: { id: adId } }, body: { clickPrice } }),
    onSuccess: onSaved,
  });
  const { errors, edited, submitted } = useFieldErrors(save.error);
  const name = `bid-${adId}`;
  return (
    <form
      className="inline-form bid-form"
      noValidate
      aria-label={t('campaign.bid.form', { title })}
      onSubmit={(event) => {
        event.preventDefault();
        submitted();
        const parsed = readMoney(value);
        setLocal(parsed.ok ? null : parsed.message);
        if (parsed.ok && parsed.value !== null) save.mutate(parsed.value);
      }}
    >
      <MoneyField
        label={t('campaign.bid.label')}
        name={name}
        hint={t('campaign.bid.hint')}
        value={value}
        error={local ?? errors.clickPrice ?? (save.error && !errors.clickPrice ? problem(save.error) : undefined)}
        onChange={(event) => {
          setValue(event.target.value);
          setLocal(null);
          edited('clickPrice');
        }}
      />
      <button type="submit" disabled={save.isPending}>
        <Trans
          t={t}
          i18nKey="campaign.bid.save"
          values={{ title }}
          components={{ hidden: <span className="visually-hidden" /> }}
        />
      </button>
      {save.isSuccess && !save.isPending && <span role="status">{t('action.saved')}</span>}
    </form>
  );
}

/**
 * Why a click costs less than the bid: the price is the generalized second price of the auction
 * (docs/serving.md, "Price of a click"), shown next to the spend it explains; the page's help says more.
 */
function SpendNote({ clicks, spend }: { clicks: number; spend: number }) {
  const { t } = useTranslation('advertiser');
  return (
    <p className="hint spend-note">
      {clicks > 0 && <>{t('campaign.spendNote.average', { price: money(spend / clicks) })} </>}
      {t('campaign.spendNote.rule', { minimum: money(0.01) })} <a href="#page-help-body">{t('campaign.spendNote.link')}</a>
    </p>
  );
}

/**
 * The longest headline of a campaign's ads: 60 characters, 100 when it targets Thailand (the API's
 * rule; the schema's maxLength is the larger of the two).
 */
function headlineLimitOf(geo: string[]): number {
  return geo.includes('TH') ? FIELD_LIMITS.createOffer.description.maxLength : 60;
}

function CreateAd({
  campaignId,
  headlineLimit,
  onDone,
  onCreated,
}: {
  campaignId: number;
  headlineLimit: number;
  onDone: () => void;
  onCreated: () => void;
}) {
  const { t } = useTranslation('advertiser');
  const [form, setForm] = useState({ title: '', url: '', clickPrice: '', price: '' });
  const [rectangle, setRectangle] = useState('');
  const [square, setSquare] = useState('');
  const [local, setLocal] = useState<{ clickPrice?: string; price?: string }>({});
  // A price is whole units of the platform's currency (the API's integer), read as the reader's language writes it.
  const price = readWholeNumber(form.price, { optional: true, price: true });
  const create = useMutation({
    mutationFn: ({ clickPrice, price }: { clickPrice: string; price: number | null }) =>
      data(
        api.POST('/api/advertiser/offers', {
          body: {
            campaignId,
            // One headline: what blocks show (`title`) and the API's required text (`description`).
            title: form.title,
            description: form.title,
            url: form.url,
            clickPrice,
            rectangle,
            square,
            ...(price === null ? {} : { price }),
          },
        }),
      ),
    onSuccess: () => {
      onCreated();
      onDone();
    },
  });
  // The bid is money and the price whole units: read by the reader's language or refused, never guessed.
  const { errors, general, edited, field, submit } = useFormFields(form, setForm, {
    error: create.error,
    mutate: () => {
      const bid = readMoney(form.clickPrice);
      setLocal({ clickPrice: bid.ok ? undefined : bid.message, price: price.ok ? undefined : price.message });
      if (bid.ok && bid.value !== null && price.ok) create.mutate({ clickPrice: bid.value, price: price.value });
    },
  });
  const limits = FIELD_LIMITS.createOffer;
  const pick = (name: string, setter: (value: string) => void) => async (event: { target: HTMLInputElement }) => {
    const file = event.target.files?.[0];
    setter(file ? await readAsDataUri(file) : '');
    edited(name);
  };
  return (
    <form className="card create-ad" onSubmit={submit} noValidate aria-label={t('adForm.new')}>
      <div className="form-grid">
        <h3>{t('adForm.new')}</h3>
        {general && <Notice kind="error">{problem(create.error)}</Notice>}
        <HeadlineField limit={headlineLimit} {...field('title')} name="headline" error={errors.title ?? errors.description} />
        <LandingPageField maxLength={limits.url.maxLength} {...field('url')} />
        <MoneyField
          label={t('adForm.bid')}
          required
          {...field('clickPrice')}
          error={local.clickPrice ?? errors.clickPrice}
          onChange={(event) => {
            setLocal({ ...local, clickPrice: undefined });
            field('clickPrice').onChange(event);
          }}
        />
        <WholeNumberField
          label={t('adForm.price')}
          {...field('price')}
          error={local.price ?? errors.price}
          onChange={(event) => {
            setLocal({ ...local, price: undefined });
            field('price').onChange(event);
          }}
        />
        <Field
          label={t('adForm.widePicture')}
          name="rectangle"
          type="file"
          accept="image/png,image/jpeg"
          required
          error={errors.rectangle}
          onChange={pick('rectangle', setRectangle)}
        />
        <Field
          label={t('adForm.squarePicture')}
          name="square"
          type="file"
          accept="image/png,image/jpeg"
          required
          error={errors.square}
          onChange={pick('square', setSquare)}
        />
        <FormActions submit={t('adForm.submit')} busy={t('action.sending')} pending={create.isPending} onCancel={onDone} />
      </div>
      <AdPreview
        square={square || null}
        wide={rectangle || null}
        title={form.title}
        url={form.url}
        price={price.ok && price.value !== null ? String(price.value) : ''}
      />
    </form>
  );
}
