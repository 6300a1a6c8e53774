import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, data, problem } from '../../../api.ts';
import { Notice, Switch } from '../../../components/controls.tsx';
import { CopyField } from '../../../components/copy-field.tsx';
import { ScrollRegion } from '../../../components/scroll-region.tsx';
import { money } from '../../../format.ts';
import type { PageProps } from '../../../routes.tsx';
import { Deliveries } from './deliveries.tsx';
import { EndpointForm, type EndpointWithSecret } from './endpoint-form.tsx';
import { type Endpoint, PREFIX, type WebhookKind } from './webhook-events.ts';

/**
 * The account's webhook endpoints (docs/webhooks.md): add, change, switch off, delete, rotate the
 * signing secret (shown once, as the API shows it once), send a test event and follow deliveries.
 * Every kind of account has the page under its own menu (`/advertiser/webhooks`, ...).
 */
export function WebhooksPage({ user }: PageProps) {
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
  const [watched, setWatched] = useState<number | undefined>();
  const [notice, setNotice] = useState('');
  const endpoints = useQuery({
    queryKey: ['webhooks', kind],
    queryFn: () => data(api.GET(`${PREFIX[kind]}/webhooks`, { params: { query: { 'per-page': 100 } } })),
  });
  const refresh = () => {
    queryClient.invalidateQueries({ queryKey: ['webhooks', kind] });
    queryClient.invalidateQueries({ queryKey: ['webhook-deliveries'] });
    queryClient.invalidateQueries({ queryKey: ['webhook-attempts'] });
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
      setNotice(`${endpoint.url} is deleted.`);
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
      setNotice(`A webhook.test event is on its way to ${endpoint.url}.`);
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
  const shown = list.find((endpoint) => endpoint.id === watched);
  const error = endpoints.error ?? toggle.error ?? remove.error ?? rotate.error ?? test.error;
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <button ref={addEndpoint} type="button" className="primary" onClick={() => setEditing('new')}>
          Add endpoint
        </button>
      </div>
      <p className="lead">
        Nativa POSTs a signed JSON event to your endpoints when something happens{' '}
        {kind === 'operator' ? 'in any account of the platform' : 'in your account'}. Check the <code>Nativa-Signature</code>{' '}
        header with the endpoint’s signing secret, answer with any 2xx within 10 seconds, and ignore an event id you have already
        handled: failed deliveries are retried for 24 hours.
      </p>
      {error && <Notice kind="error">{problem(error)}</Notice>}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {secret && (
        <div className="card secret-box">
          <Notice kind="ok">
            {secret.rotated
              ? `A new signing secret for ${secret.url}. The old one keeps signing beside it for a day. Copy it now: it is not shown again.`
              : `${secret.url} is added. Copy its signing secret now: it is not shown again.`}
          </Notice>
          <CopyField label="Signing secret" value={secret.secret} />
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
      <ScrollRegion label="Endpoints">
        <table className="endpoints">
          <thead>
            <tr>
              <th scope="col">Endpoint</th>
              <th scope="col">Events</th>
              <th scope="col">Delivers</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((endpoint) => (
              <tr key={endpoint.id}>
                <th scope="row">
                  <span className="url">{endpoint.url}</span>
                  {endpoint.description && <span className="sub">{endpoint.description}</span>}
                  {endpoint.balanceThreshold !== null && (
                    <span className="sub">Balance threshold {money(endpoint.balanceThreshold)}</span>
                  )}
                </th>
                <td>
                  <ul className="event-list">
                    {endpoint.events.map((type) => (
                      <li key={type}>
                        <code>{type}</code>
                      </li>
                    ))}
                  </ul>
                </td>
                <td>
                  <Switch
                    checked={endpoint.active}
                    label={`Deliver events to ${endpoint.url}`}
                    disabled={toggle.isPending}
                    onChange={(active) => toggle.mutate({ endpoint, active })}
                  />
                </td>
                <td>
                  <div className="row-actions">
                    <button type="button" onClick={() => setWatched(endpoint.id)} aria-pressed={watched === endpoint.id}>
                      Deliveries<span className="visually-hidden"> to {endpoint.url}</span>
                    </button>
                    <button type="button" disabled={test.isPending} onClick={() => test.mutate(endpoint)}>
                      Send test event<span className="visually-hidden"> to {endpoint.url}</span>
                    </button>
                    <button
                      type="button"
                      className="link"
                      disabled={rotate.isPending}
                      onClick={() =>
                        window.confirm(`Make a new signing secret for ${endpoint.url}? The old one keeps signing for a day.`) &&
                        rotate.mutate(endpoint)
                      }
                    >
                      New secret<span className="visually-hidden"> for {endpoint.url}</span>
                    </button>
                    <button type="button" className="link" onClick={() => setEditing(endpoint)}>
                      Change<span className="visually-hidden"> {endpoint.url}</span>
                    </button>
                    <button
                      type="button"
                      className="link danger"
                      onClick={() =>
                        window.confirm(`Delete the endpoint ${endpoint.url}? Events still on their way to it are dropped.`) &&
                        remove.mutate(endpoint)
                      }
                    >
                      Delete<span className="visually-hidden"> {endpoint.url}</span>
                    </button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {endpoints.isSuccess && list.length === 0 && <p className="empty">No endpoints yet.</p>}
      </ScrollRegion>
      {shown && <Deliveries key={shown.id} kind={kind} endpoint={shown} />}
    </>
  );
}
