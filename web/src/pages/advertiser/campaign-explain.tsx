import { useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, fieldErrors, isNotFound, problem } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { ScrollRegion } from '../../components/scroll-region.tsx';
import { fineMoney, percent } from '../../format.ts';
import { setQuery, useLocation } from '../../router.tsx';
import { CampaignHead, CampaignNotFound, useCampaign } from './campaign-nav.tsx';

type Device = 'desktop' | 'mobile' | 'tablet';
const DEVICES: { value: Device; label: string }[] = [
  { value: 'desktop', label: 'Desktop' },
  { value: 'mobile', label: 'Phone' },
  { value: 'tablet', label: 'Tablet' },
];

/** The API's reason codes in the advertiser's words (docs/adr/0019 lists what each means). */
export const REASON_TEXT: Record<string, string> = {
  campaign_paused: 'The campaign is switched off or archived',
  campaign_not_approved: 'The campaign is in moderation or was rejected',
  ad_paused: 'The ad is switched off',
  moderation: 'The ad is in moderation or was rejected',
  not_indexed: 'Just changed: serving takes it up within seconds',
  balance: 'Your balance is spent',
  budget: 'The daily budget is spent',
  daily_limit: 'The daily click limit is reached',
  geo: 'The campaign targets other countries',
  audience: 'Retargeting: this visitor is not in the audience',
  page_repeat: 'Already shown on this page',
  frequency: 'This visitor has seen it as often as the cap allows today',
  schedule: 'Outside the campaign’s hours',
  total_budget: 'The lifetime budget is spent',
  flight: 'Outside the campaign’s start and end',
  pacing: 'Even pacing: ahead of today’s share of the budget',
  os: 'The campaign targets other operating systems',
  browser: 'The campaign targets other browsers',
  site_list: 'The campaign’s site lists exclude this site',
  category: 'The site refuses this category',
  floor: 'The bid is under the block’s minimum price',
  filtered: 'Kept out by another filter of this request',
};

/**
 * "Why does (or doesn't) my ad show?": each ad of the campaign for one impression of a block,
 * eligible with its effective bid, score, rank and price, or filtered with the reasons. The
 * answer comes from the serving engine's own index, so it is what serving would do now.
 */
export function CampaignExplainPage({ id }: { id: number }) {
  const { query } = useLocation();
  const block = query.get('block') ?? '';
  const device = (DEVICES.some((entry) => entry.value === query.get('device')) ? query.get('device') : 'desktop') as Device;
  const country = query.get('country') ?? '';
  const [form, setForm] = useState({ block, device, country });

  const campaign = useCampaign(id);
  const explanation = useQuery({
    queryKey: ['explain', id, block, device, country],
    queryFn: () =>
      data(
        api.GET('/api/advertiser/campaigns/{id}/explain', {
          params: {
            path: { id },
            query: { block: Number(block), device, ...(country ? { country } : {}) },
          },
        }),
      ),
    enabled: campaign.isSuccess && /^\d+$/.test(block),
    retry: false,
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = { block: form.block.trim(), device: form.device, country: form.country.trim().toUpperCase() };
    // The same impression again asks serving again: the answer is about now, and now has moved.
    if (wanted.block === block && wanted.device === device && wanted.country === country) void explanation.refetch();
    else setQuery(wanted);
  };
  const errors = fieldErrors(explanation.error);

  if (isNotFound(campaign.error)) {
    return <CampaignNotFound id={id} />;
  }
  const result = explanation.data;
  return (
    <>
      <CampaignHead id={id} title={campaign.data?.title} current={'/explain'} />
      <p className="lead">
        Pick a block (its number is in the “Sites and devices” table, e.g. 45 in 123s45), a device and a country: you see what
        serving would do with each of your ads for that visitor now. Competing ads of other advertisers stay anonymous.
      </p>
      <form className="card inline-form" onSubmit={submit} noValidate aria-label="Impression to explain">
        <Field
          label="Block"
          name="block"
          inputMode="numeric"
          required
          value={form.block}
          error={errors.block}
          onChange={(event) => setForm({ ...form, block: event.target.value })}
        />
        <Field label="Device" name="device">
          <select
            id="field-device"
            name="device"
            value={form.device}
            onChange={(event) => setForm({ ...form, device: event.target.value as Device })}
          >
            {DEVICES.map((entry) => (
              <option key={entry.value} value={entry.value}>
                {entry.label}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Country (optional)"
          name="country"
          hint="Two letters, e.g. DE"
          maxLength={2}
          value={form.country}
          error={errors.country}
          onChange={(event) => setForm({ ...form, country: event.target.value })}
        />
        <div className="actions">
          <button type="submit" className="primary">
            Explain
          </button>
        </div>
      </form>
      {(campaign.error || (explanation.error && Object.keys(errors).length === 0)) && (
        <Notice kind="error">{problem(campaign.error ?? explanation.error)}</Notice>
      )}
      {explanation.isFetching && <p className="loading">Asking serving…</p>}
      {result && (
        <section className="card" aria-labelledby="explain-title">
          <h2 id="explain-title">
            Block {result.block}, {DEVICES.find((entry) => entry.value === result.device)?.label.toLowerCase()}
            {result.country ? `, ${result.country}` : ', unknown country'}
          </h2>
          <p>
            {result.eligible === 1 ? 'One ad competes' : `${result.eligible} ads compete`} for this impression; the block shows{' '}
            {result.teaserCount === 1 ? 'one teaser' : `${result.teaserCount} teasers`}.
            {result.scores.length > 0 && (
              <> Scores of the first places: {result.scores.map((score) => fineMoney(score)).join(', ')} per thousand views.</>
            )}
          </p>
          <ScrollRegion label="Your ads in this block">
            <table className="explain">
              <thead>
                <tr>
                  <th scope="col">Ad</th>
                  <th scope="col">Outcome</th>
                  <th scope="col" className="num">
                    Bid
                  </th>
                  <th scope="col" className="num">
                    Coefficients
                  </th>
                  <th scope="col" className="num">
                    Effective bid
                  </th>
                  <th scope="col" className="num">
                    CTR estimate
                  </th>
                  <th scope="col" className="num">
                    Score
                  </th>
                  <th scope="col" className="num">
                    Click price
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
                          {ad.wins ? 'Shows' : 'Competes'}, place {ad.rank}
                        </span>
                      ) : (
                        <ul className="reasons">
                          {ad.reasons.map((reason) => (
                            <li key={reason}>{REASON_TEXT[reason] ?? reason}</li>
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
                  </tr>
                ))}
              </tbody>
            </table>
            {result.ads.length === 0 && <p className="empty">This campaign has no ads.</p>}
          </ScrollRegion>
        </section>
      )}
    </>
  );
}
