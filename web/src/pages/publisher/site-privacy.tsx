import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, problem } from '../../api.ts';
import { Notice, Switch } from '../../components/controls.tsx';
import { CopyField } from '../../components/copy-field.tsx';
import { publisherKeys } from './publisher-keys.ts';

/** A site's ads.txt line to publish and its "never personalise" switch (docs/privacy.md). */
export function SitePrivacy({ siteId }: { siteId: number }) {
  const { t } = useTranslation('publisher');
  const client = useQueryClient();
  const key = publisherKeys.sites.privacy(siteId);
  const privacy = useQuery({
    queryKey: key,
    queryFn: () => data(api.GET('/api/webmaster/sites/{id}/privacy', { params: { path: { id: siteId } } })),
  });
  const save = useMutation({
    mutationFn: (neverPersonalise: boolean) =>
      data(
        api.PUT('/api/webmaster/sites/{id}/privacy', {
          params: { path: { id: siteId } },
          body: { never_personalise: neverPersonalise },
        }),
      ),
    onSuccess: (saved) => client.setQueryData(key, saved),
  });
  const current = privacy.data;
  return (
    <section className="card" aria-labelledby="privacy-title">
      <h2 id="privacy-title">{t('privacy.title')}</h2>
      {(privacy.error || save.error) && <Notice kind="error">{problem(privacy.error ?? save.error)}</Notice>}
      {current && (
        <>
          <p>
            <Trans t={t} i18nKey="privacy.adsTxt" components={{ code: <code /> }} />
          </p>
          <CopyField label={t('privacy.adsTxtLine')} value={current.ads_txt_line} />
          <div className="switch-row">
            <Switch
              checked={current.never_personalise}
              label={t('privacy.neverPersonalise')}
              disabled={save.isPending}
              onChange={(checked) => save.mutate(checked)}
            />
            <span>{t('privacy.neverPersonaliseMeaning')}</span>
          </div>
        </>
      )}
    </section>
  );
}
