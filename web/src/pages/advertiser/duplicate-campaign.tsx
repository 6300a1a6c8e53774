import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { navigate } from '../../router.tsx';
import { advertiserKeys } from './advertiser-keys.ts';

/**
 * Copies the campaign with its settings, coefficients and ads (POST /advertiser/campaigns/duplicate);
 * the copy and its ads await moderation. Opens the copy.
 */
export function DuplicateCampaign({ id }: { id: number }) {
  const { t } = useTranslation('advertiser');
  const queryClient = useQueryClient();
  const copy = useMutation({
    mutationFn: () => data(api.POST('/api/advertiser/campaigns/duplicate', { body: { id } })),
    onSuccess: (campaign) => {
      queryClient.invalidateQueries({ queryKey: advertiserKeys.campaigns.all() });
      navigate(`/advertiser/campaigns/${campaign.id}`);
    },
  });
  return (
    <>
      <button type="button" onClick={() => copy.mutate()} disabled={copy.isPending}>
        {copy.isPending ? t('duplicate.copying') : t('duplicate.button')}
      </button>
      {copy.error && <Notice kind="error">{problem(copy.error)}</Notice>}
    </>
  );
}
