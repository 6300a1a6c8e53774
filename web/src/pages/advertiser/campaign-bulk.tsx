import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';

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
  const queryClient = useQueryClient();
  const bulk = useMutation({
    mutationFn: (change: { active?: boolean; archived?: boolean }) =>
      data(api.POST('/api/advertiser/campaigns/bulk', { body: { ids: [...chosen], ...change } })),
    onSuccess: onDone,
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['campaigns'] }),
  });
  if (chosen.size === 0) return null;
  return (
    <>
      <fieldset className="toolbar bulk-bar">
        <legend className="visually-hidden">Change the chosen campaigns</legend>
        <span>{chosen.size} chosen</span>
        <button type="button" onClick={() => bulk.mutate({ active: true })} disabled={bulk.isPending}>
          Switch on
        </button>
        <button type="button" onClick={() => bulk.mutate({ active: false })} disabled={bulk.isPending}>
          Switch off
        </button>
        <button type="button" onClick={() => bulk.mutate({ archived: true })} disabled={bulk.isPending}>
          Archive
        </button>
        {bulk.error && <Notice kind="error">{problem(bulk.error)}</Notice>}
      </fieldset>
      <BulkCoefficientForm chosen={chosen} />
    </>
  );
}

const TARGETS = { site: 'A site or block', desktop: 'Desktop', mobile: 'Phones', tablet: 'Tablets' } as const;

/**
 * One site's, block's or device's quality coefficient set on every ticked campaign in one request
 * (POST /advertiser/campaigns/multipliers/bulk): all change or none does.
 */
function BulkCoefficientForm({ chosen }: { chosen: ReadonlySet<number> }) {
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
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['traffic'] }),
  });
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    save.reset();
    // The API's decimal point, whatever the reader's language ("1,5" means 1.5 here: a coefficient is never grouped).
    const value = Number(coef.trim().replace(',', '.'));
    if (coef.trim() === '' || !Number.isFinite(value)) {
      setLocal('Write a coefficient from 0.1 to 10, e.g. 1.5.');
      return;
    }
    setLocal(null);
    save.mutate(value);
  };
  return (
    <form className="toolbar bulk-coefficient" onSubmit={submit} noValidate aria-label="Coefficient for the chosen campaigns">
      <div className="stacked">
        <label htmlFor="bulk-target">Coefficient for</label>
        <select id="bulk-target" value={target} onChange={(event) => setTarget(event.target.value as keyof typeof TARGETS)}>
          {Object.entries(TARGETS).map(([value, text]) => (
            <option key={value} value={value}>
              {text}
            </option>
          ))}
        </select>
      </div>
      {target === 'site' && (
        <Field
          label="Site or block"
          name="bulk-site"
          hint="123 for a site, 123s45 for its block 45."
          value={site}
          error={errors.site}
          onChange={(event) => {
            edited('site');
            setSite(event.target.value);
          }}
        />
      )}
      <Field
        label="Coefficient"
        name="bulk-coef"
        inputMode="decimal"
        hint="From 0.1 to 10."
        value={coef}
        error={local ?? errors.coef}
        onChange={(event) => {
          setLocal(null);
          edited('coef');
          setCoef(event.target.value);
        }}
      />
      <button type="submit" disabled={save.isPending}>
        Set coefficient
      </button>
      <span role="status">{save.isSuccess && `Set on ${save.data.ids.length} campaigns.`}</span>
      {(general || Object.keys(errors).some((field) => field.startsWith('ids'))) && (
        <Notice kind="error">{problem(save.error)}</Notice>
      )}
    </form>
  );
}
