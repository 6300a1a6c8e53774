import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';

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
  );
}
