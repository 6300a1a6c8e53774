import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice } from '../../components/controls.tsx';
import { operatorKeys } from './operator-keys.ts';

const STATUS_TEXT = {
  unchecked: 'adsTxt.unchecked',
  found: 'adsTxt.found',
  missing: 'adsTxt.missing',
  unreachable: 'adsTxt.unreachable',
} as const;

/** On a site's moderation card: whether the site's /ads.txt has the network's line, and a check now. */
export function SiteAdsTxt({ siteId }: { siteId: number }) {
  const { t } = useTranslation('operator');
  const client = useQueryClient();
  const key = operatorKeys.moderation.adsTxt(siteId);
  const privacy = useQuery({
    queryKey: key,
    queryFn: () => data(api.GET('/api/admin/sites/{id}/privacy', { params: { path: { id: siteId } } })),
  });
  const check = useMutation({
    mutationFn: () => data(api.POST('/api/admin/sites/{id}/ads-txt-check', { params: { path: { id: siteId } } })),
    onSuccess: (checked) => client.setQueryData(key, checked),
  });
  const adsTxt = privacy.data?.ads_txt;
  return (
    <>
      <dt>ads.txt</dt>
      <dd>
        {adsTxt ? (
          <>
            <span className={`tag ads-txt-${adsTxt.status}`}>{t(STATUS_TEXT[adsTxt.status])}</span>
            {adsTxt.detail && <span className="sub"> {adsTxt.detail}</span>}{' '}
            <button type="button" className="link" onClick={() => check.mutate()} disabled={check.isPending}>
              {t('adsTxt.checkNow')}
              <span className="visually-hidden"> {t('adsTxt.checkNowOf', { id: siteId })}</span>
            </button>
          </>
        ) : (
          '…'
        )}
        {(privacy.error || check.error) && <Notice kind="error">{problem(privacy.error ?? check.error)}</Notice>}
      </dd>
    </>
  );
}
