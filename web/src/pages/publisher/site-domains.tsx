import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data, problem, useFieldErrors } from '../../api.ts';
import { Field, Notice } from '../../components/controls.tsx';
import { publisherKeys } from './publisher-keys.ts';

/**
 * The further domains a site's blocks serve on (PUT /webmaster/sites/{id}, `domains`), besides the
 * domain of its address: a block asked from any other page shows nothing and its clicks are not paid.
 */
export function SiteDomains({ siteId, domains }: { siteId: number; domains: readonly string[] }) {
  const { t } = useTranslation('publisher');
  const queryClient = useQueryClient();
  const [text, setText] = useState(domains.join(', '));
  const save = useMutation({
    mutationFn: (list: string[]) =>
      data(api.PUT('/api/webmaster/sites/{id}', { params: { path: { id: siteId } }, body: { domains: list } })),
    onSuccess: (site) => {
      setText((site.domains ?? []).join(', '));
      return queryClient.invalidateQueries({ queryKey: publisherKeys.sites.all() });
    },
  });
  const fields = useFieldErrors(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    fields.submitted();
    save.mutate(
      text
        .split(/[\s,]+/)
        .map((domain) => domain.trim())
        .filter((domain) => domain !== ''),
    );
  };
  return (
    <form className="card site-domains" onSubmit={submit} noValidate aria-labelledby="site-domains-title">
      <h2 id="site-domains-title">{t('domains.title')}</h2>
      {fields.general && <Notice kind="error">{problem(save.error)}</Notice>}
      <Field
        label={t('domains.label')}
        name="domains"
        autoComplete="off"
        maxLength={2000}
        value={text}
        error={fields.errors.domains}
        hint={t('domains.hint')}
        onChange={(event) => {
          save.reset();
          fields.edited('domains');
          setText(event.target.value);
        }}
      />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? t('saving') : t('domains.save')}
        </button>
        <span role="status">{save.isSuccess && t('saved')}</span>
      </div>
    </form>
  );
}
