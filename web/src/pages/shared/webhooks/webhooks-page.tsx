import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { api, data, problem } from '../../../api.ts';
import { Notice, Switch } from '../../../components/controls.tsx';
import { CopyField } from '../../../components/copy-field.tsx';
import { DataTable } from '../../../components/data-table.tsx';
import { useForgetOnLeave } from '../../../components/shown-once.ts';
import { money } from '../../../format.ts';
import type { PageProps } from '../../../routes.tsx';
import { Deliveries } from './deliveries.tsx';
import { EndpointForm, type EndpointWithSecret } from './endpoint-form.tsx';
import { type Endpoint, PREFIX, type WebhookKind } from './webhook-events.ts';
import { webhookKeys } from './webhook-keys.ts';

/**
 * The account's webhook endpoints (docs/webhooks.md): add, change, switch off, delete, rotate the
 * signing secret (shown once, as the API shows it once), send a test event and follow deliveries.
 * Every kind of account has the page under its own menu (`/advertiser/webhooks`, ...).
 */
export function WebhooksPage({ user }: PageProps) {
  const { t } = useTranslation('shared');
  const kind: WebhookKind = user.type;
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Endpoint | 'new' | undefined>();
  const addEndpoint = useRef<HTMLButtonElement>(null);
  // Where the keyboard goes on when the form closes (it stood where the form was opened from).
  const closeForm = () => {
    setEditing(undefined);
    addEndpoint.current?.focus();
  };
  const [secret, setSecret] = useState<{ url: string; secret: string; rotated: boolean } | undefined>();
  useForgetOnLeave(() => setSecret(undefined));
  const [watched, setWatched] = useState<number | undefined>();
  const [notice, setNotice] = useState('');
  const endpoints = useQuery({
    queryKey: webhookKeys.endpoints(kind),
    queryFn: () => data(api.GET(`${PREFIX[kind]}/webhooks`, { params: { query: { 'per-page': 100 } } })),
  });
  const refresh = () => {
    queryClient.invalidateQueries({ queryKey: webhookKeys.endpoints(kind) });
    queryClient.invalidateQueries({ queryKey: webhookKeys.deliveries.all() });
    queryClient.invalidateQueries({ queryKey: webhookKeys.attempts.all() });
  };
  const path = (endpoint: Endpoint) => ({ params: { path: { id: endpoint.id } } });
  const toggle = useMutation({
    mutationFn: ({ endpoint, active }: { endpoint: Endpoint; active: boolean }) =>
      api.PUT(`${PREFIX[kind]}/webhooks/{id}`, { ...path(endpoint), body: { active } }),
    onSettled: refresh,
  });
  const remove = useMutation({
    mutationFn: (endpoint: Endpoint) => api.DELETE(`${PREFIX[kind]}/webhooks/{id}`, path(endpoint)),
    onSuccess: (_answer, endpoint) => {
      if (watched === endpoint.id) setWatched(undefined);
      setNotice(t('webhooks.deleted', { url: endpoint.url }));
    },
    onSettled: refresh,
  });
  const rotate = useMutation({
    mutationFn: (endpoint: Endpoint) => data(api.POST(`${PREFIX[kind]}/webhooks/{id}/secret`, { ...path(endpoint), body: {} })),
    onSuccess: (rotated) => setSecret({ url: rotated.url, secret: rotated.secret, rotated: true }),
    onSettled: refresh,
  });
  const test = useMutation({
    mutationFn: (endpoint: Endpoint) => api.POST(`${PREFIX[kind]}/webhooks/{id}/test`, path(endpoint)),
    onSuccess: (_answer, endpoint) => {
      setWatched(endpoint.id);
      setNotice(t('webhooks.testSent', { url: endpoint.url, event: 'webhook.test' }));
    },
    onSettled: refresh,
  });
  const created = (endpoint: EndpointWithSecret) => {
    closeForm();
    setSecret({ url: endpoint.url, secret: endpoint.secret, rotated: false });
    setWatched(endpoint.id);
    refresh();
  };
  const list = endpoints.data ?? [];
  const url = (endpoint: Endpoint) => ({ url: endpoint.url });
  const hidden = { hidden: <span className="visually-hidden" /> };
  const shown = list.find((endpoint) => endpoint.id === watched);
  const error = endpoints.error ?? toggle.error ?? remove.error ?? rotate.error ?? test.error;
  return (
    <>
      <div className="page-head">
        <h1>{t('webhooks.title')}</h1>
        <button ref={addEndpoint} type="button" className="primary" onClick={() => setEditing('new')}>
          {t('endpoint.add')}
        </button>
      </div>
      <p className="lead">
        <Trans
          t={t}
          i18nKey={kind === 'operator' ? 'webhooks.lead.operator' : 'webhooks.lead.own'}
          components={{ code: <code /> }}
        />
      </p>
      {error && <Notice kind="error">{problem(error)}</Notice>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {secret && (
        <div className="card secret-box">
          <Notice kind="ok">
            {secret.rotated
              ? t('webhooks.secret.rotated', { url: secret.url })
              : t('webhooks.secret.created', { url: secret.url })}
          </Notice>
          <CopyField label={t('webhooks.secret.label')} value={secret.secret} />
        </div>
      )}
      {editing !== undefined && (
        <EndpointForm
          key={editing === 'new' ? 'new' : editing.id}
          kind={kind}
          endpoint={editing === 'new' ? undefined : editing}
          onCreated={created}
          onSaved={() => {
            closeForm();
            refresh();
          }}
          onCancel={closeForm}
        />
      )}
      <DataTable
        label={t('webhooks.endpoints')}
        className="endpoints"
        rows={list}
        rowKey={(endpoint) => endpoint.id}
        empty={endpoints.isSuccess && t('webhooks.empty')}
        columns={[
          {
            head: t('webhooks.column.endpoint'),
            rowHeader: true,
            cell: (endpoint) => (
              <>
                <span className="url">{endpoint.url}</span>
                {endpoint.description && <span className="sub">{endpoint.description}</span>}
                {endpoint.balanceThreshold !== null && (
                  <span className="sub">{t('webhooks.threshold', { amount: money(endpoint.balanceThreshold) })}</span>
                )}
              </>
            ),
          },
          {
            head: t('webhooks.column.events'),
            cell: (endpoint) => (
              <ul className="event-list">
                {endpoint.events.map((type) => (
                  <li key={type}>
                    <code>{type}</code>
                  </li>
                ))}
              </ul>
            ),
          },
          {
            head: t('webhooks.column.delivers'),
            cell: (endpoint) => (
              <Switch
                checked={endpoint.active}
                label={t('webhooks.deliverTo', { url: endpoint.url })}
                disabled={toggle.isPending}
                onChange={(active) => toggle.mutate({ endpoint, active })}
              />
            ),
          },
          {
            head: t('webhooks.column.actions'),
            hiddenHead: true,
            cell: (endpoint) => (
              <div className="row-actions">
                <button type="button" onClick={() => setWatched(endpoint.id)} aria-pressed={watched === endpoint.id}>
                  <Trans t={t} i18nKey="webhooks.action.deliveries" values={url(endpoint)} components={hidden} />
                </button>
                <button type="button" disabled={test.isPending} onClick={() => test.mutate(endpoint)}>
                  <Trans t={t} i18nKey="webhooks.action.test" values={url(endpoint)} components={hidden} />
                </button>
                <button
                  type="button"
                  className="link"
                  disabled={rotate.isPending}
                  onClick={() => window.confirm(t('webhooks.confirm.rotate', url(endpoint))) && rotate.mutate(endpoint)}
                >
                  <Trans t={t} i18nKey="webhooks.action.rotate" values={url(endpoint)} components={hidden} />
                </button>
                <button type="button" className="link" onClick={() => setEditing(endpoint)}>
                  <Trans t={t} i18nKey="webhooks.action.change" values={url(endpoint)} components={hidden} />
                </button>
                <button
                  type="button"
                  className="link danger"
                  onClick={() => window.confirm(t('webhooks.confirm.delete', url(endpoint))) && remove.mutate(endpoint)}
                >
                  <Trans t={t} i18nKey="webhooks.action.delete" values={url(endpoint)} components={hidden} />
                </button>
              </div>
            ),
          },
        ]}
      />
      {shown && <Deliveries key={shown.id} kind={kind} endpoint={shown} />}
    </>
  );
}
