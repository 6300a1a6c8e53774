import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api, data, isNotFound, noRetryOnRefusal, problem, useFormFields } from '../../api.ts';
import { DailyChart, useResolvedColors } from '../../components/chart.tsx';
import { Field, FormActions, Notice, Switch } from '../../components/controls.tsx';
import { FigureCells, FigureHeads } from '../../components/figures.tsx';
import { GoalPicker, goalNoun, useGoal } from '../../components/goal-picker.tsx';
import { PeriodPicker, usePeriod } from '../../components/period-picker.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { count, dayLabel, fineMoney, money, percent } from '../../format.ts';
import { ModerationReason } from '../shared/moderation-reason.tsx';
import { AD_STATUS, CAMPAIGN_STATUS, useDailyStatistics } from './advertiser-data.ts';
import { CampaignDelivery } from './campaign-delivery.tsx';
import { CampaignHead, CampaignNotFound } from './campaign-nav.tsx';

/** A campaign's days: what showed, what it cost and what it brought, without the ratios. */
const DAILY_FIGURES = ['views', 'clicks', 'money', 'orders'] as const;

export function CampaignPage({ id }: { id: number }) {
  const period = usePeriod();
  const goal = useGoal();
  const queryClient = useQueryClient();
  const campaign = useQuery({
    queryKey: ['campaign', id, period.from, period.to, goal],
    queryFn: () =>
      data(
        api.GET('/api/advertiser/campaigns/{id}', {
          params: {
            path: { id },
            query: { expand: 'offers', dateFrom: period.from, dateTo: period.to, archived: 0, targetId: goal },
          },
        }),
      ),
    retry: noRetryOnRefusal,
  });
  const daily = useDailyStatistics(period, String(id), goal);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['campaign', id] });
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
  const series = useResolvedColors(
    useMemo(
      () =>
        daily.data
          ? [
              { label: 'Spend', values: daily.data.money, color: 'var(--accent)', format: money },
              { label: 'Clicks', values: daily.data.clicks, color: 'var(--second)', format: count, right: true },
            ]
          : [],
      [daily.data],
    ),
  );

  if (isNotFound(campaign.error)) {
    return <CampaignNotFound id={id} />;
  }
  const current = campaign.data;
  const offers = current?.offers ?? [];
  return (
    <>
      <CampaignHead id={id} title={current?.title} current={''}>
        <GoalPicker />
        <PeriodPicker />
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
        <section className="tiles" aria-label="Figures for the period">
          <div className="tile">
            <span className="tile-label">Status</span>
            <strong>{CAMPAIGN_STATUS[current.status]}</strong>
          </div>
          <div className="tile">
            <span className="tile-label">Spend</span>
            <strong>{money(current.money)}</strong>
          </div>
          <div className="tile">
            <span className="tile-label">Clicks</span>
            <strong>{count(current.clicks)}</strong>
          </div>
          <div className="tile">
            <span className="tile-label">CTR</span>
            <strong>{percent(current.ctr)}</strong>
          </div>
          <div className="tile">
            <span className="tile-label">{goalNoun(goal)}</span>
            <strong>{count(current.orders)}</strong>
          </div>
          <div className="tile">
            <span className="tile-label">CR</span>
            <strong>{percent(current.cr)}</strong>
          </div>
          <div className="tile">
            <span className="tile-label">CPO</span>
            <strong>{fineMoney(current.cpo)}</strong>
          </div>
        </section>
      )}

      <section aria-labelledby="ads-title">
        <div className="section-head">
          <h2 id="ads-title">Ads</h2>
          {current && !current.archived && (
            <button type="button" className="primary" onClick={() => setAdding(!adding)} aria-expanded={adding}>
              New ad
            </button>
          )}
        </div>
        {adding && <CreateAd campaignId={id} onDone={() => setAdding(false)} onCreated={refresh} />}
        {(switchAd.error || deleteAd.error) && <Notice kind="error">{problem(switchAd.error ?? deleteAd.error)}</Notice>}
        {current && offers.length === 0 && <p className="empty">No ads yet.</p>}
        <ul className="ads">
          {offers.map((ad) => (
            <li key={ad.id} className="card ad">
              <Teaser image={ad.img_wide?.url} title={ad.title} cost={ad.cost} description={ad.opis} noImage="No picture" />
              <div className="ad-facts">
                <div className="ad-row">
                  <Switch
                    checked={ad.active}
                    label={`Ad ${ad.title} is on`}
                    onChange={(active) => switchAd.mutate({ adId: ad.id, active })}
                  />
                  <span className={`status s${ad.status}`}>{AD_STATUS[ad.status]}</span>
                </div>
                <ModerationReason
                  what="ad"
                  reason={ad.moderationReason}
                  rejected={ad.status === 2}
                  resubmit={() => api.POST('/api/advertiser/offers/resubmit/{id}', { params: { path: { id: ad.id } } })}
                  onResubmitted={refresh}
                />
                <dl>
                  <dt>Bid</dt>
                  <dd>{fineMoney(ad.stavka)}</dd>
                  <dt>Clicks</dt>
                  <dd>{count(ad.clicks)}</dd>
                  <dt>Spend</dt>
                  <dd>{money(ad.money)}</dd>
                  <dt>CTR</dt>
                  <dd>{percent(ad.ctr)}</dd>
                  <dt>{goalNoun(goal)}</dt>
                  <dd>{count(ad.orders)}</dd>
                  <dt>CR</dt>
                  <dd>{percent(ad.cr)}</dd>
                </dl>
                <button
                  type="button"
                  className="link danger"
                  onClick={() => window.confirm(`Delete the ad “${ad.title}”? Its statistics stay.`) && deleteAd.mutate(ad.id)}
                >
                  Delete<span className="visually-hidden"> ad {ad.title}</span>
                </button>
              </div>
            </li>
          ))}
        </ul>
      </section>

      {current && !current.archived && (
        <CampaignDelivery
          campaignId={id}
          frequencyCap={current.frequencyCap}
          schedule={current.schedule}
          timeZone={current.timeZone}
          onSaved={refresh}
        />
      )}

      <section className="card" aria-labelledby="daily-title">
        <h2 id="daily-title">Per day</h2>
        {daily.data && <DailyChart days={daily.data.days} series={series} label="Daily spend and clicks of this campaign" />}
        {daily.data && (
          <ScrollRegion label="Figures per day">
            <table>
              <thead>
                <tr>
                  <th scope="col">Day</th>
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
            {daily.data.views.every((value) => value === 0) && <p className="empty">No views in this period.</p>}
          </ScrollRegion>
        )}
      </section>
    </>
  );
}

/** An ad as a block on a publisher's page shows it: picture, title, price line. */
function Teaser({
  image,
  title,
  cost,
  description,
  noImage = 'Choose a picture',
}: {
  image: string | undefined;
  title: string;
  cost: string;
  description: string;
  /** What stands in for a missing picture: a prompt in the editor, a plain fact in the list. */
  noImage?: string;
}) {
  return (
    <figure className="teaser">
      {image ? <img src={image} alt="" width={300} height={200} /> : <div className="teaser-empty">{noImage}</div>}
      <figcaption>
        <strong>{title || description || 'Your headline'}</strong>
        {cost && <span className="cost">{cost}</span>}
      </figcaption>
    </figure>
  );
}

function readAsDataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function CreateAd({ campaignId, onDone, onCreated }: { campaignId: number; onDone: () => void; onCreated: () => void }) {
  const [form, setForm] = useState({ description: '', title: '', url: '', clickPrice: '', price: '' });
  const [rectangle, setRectangle] = useState('');
  const [square, setSquare] = useState('');
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/api/advertiser/offers', {
          body: {
            campaignId,
            description: form.description,
            url: form.url,
            clickPrice: form.clickPrice,
            rectangle,
            square,
            ...(form.title ? { title: form.title } : {}),
            ...(form.price ? { price: Number(form.price) } : {}),
          },
        }),
      ),
    onSuccess: () => {
      onCreated();
      onDone();
    },
  });
  const { errors, general, edited, field, submit } = useFormFields(form, setForm, create);
  const pick = (name: string, setter: (value: string) => void) => async (event: { target: HTMLInputElement }) => {
    const file = event.target.files?.[0];
    setter(file ? await readAsDataUri(file) : '');
    edited(name);
  };
  return (
    <form className="card create-ad" onSubmit={submit} noValidate aria-label="New ad">
      <div className="form-grid">
        <h3>New ad</h3>
        {general && <Notice kind="error">{problem(create.error)}</Notice>}
        <Field label="Headline" hint="Up to 60 characters." required {...field('description')} />
        <Field label="Landing page" type="url" placeholder="https://" required {...field('url')} />
        <Field label="Bid per click" inputMode="decimal" required {...field('clickPrice')} />
        <Field label="Price (optional)" inputMode="numeric" {...field('price')} />
        <Field
          label="Wide picture (3:2)"
          name="rectangle"
          type="file"
          accept="image/png,image/jpeg"
          required
          error={errors.rectangle}
          onChange={pick('rectangle', setRectangle)}
        />
        <Field
          label="Square picture"
          name="square"
          type="file"
          accept="image/png,image/jpeg"
          required
          error={errors.square}
          onChange={pick('square', setSquare)}
        />
        <FormActions submit="Send for moderation" busy="Sending…" pending={create.isPending} onCancel={onDone} />
      </div>
      <section className="preview" aria-label="Preview">
        <p className="hint">As it will appear in a block</p>
        <Teaser
          image={rectangle || undefined}
          title={form.title || form.description}
          cost={form.price}
          description={form.description}
        />
      </section>
    </form>
  );
}
