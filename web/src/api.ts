import { ApiError, createNativaClient, data, FIELD_LIMITS } from '@nativa/sdk';
import i18next from 'i18next';
import { type FormEvent, useState } from 'react';
import { currentLanguage } from './i18n/i18n.ts';

/**
 * The API of the server that served this page: same origin, the session cookie, no token. Its
 * messages (errors, field errors) come in the app's language.
 */
export const api = createNativaClient({
  baseUrl: '',
  credentials: 'include',
  fetch: (request) => {
    request.headers.set('Accept-Language', currentLanguage());
    return globalThis.fetch(request);
  },
});

export { ApiError, data, FIELD_LIMITS };

/** The message to show for a failed call. */
export function problem(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return i18next.t('app.unreachable');
}

/** Whether a call failed with the API's 404: the object does not exist, or is not the account's. */
export function isNotFound(error: unknown): boolean {
  return error instanceof ApiError && error.status === 404;
}

/** A query's retries: a 4xx will not change by asking again (another tenant's id, a bad filter). */
export function noRetryOnRefusal(failures: number, error: unknown): boolean {
  return !(error instanceof ApiError && error.status < 500) && failures < 2;
}

/** The field errors of a 422, by field, for showing each beside its field. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof ApiError)) return {};
  return Object.fromEntries(error.errors.map((entry) => [entry.field, entry.message]));
}

/**
 * The API's field errors of the last submit, each hidden once its field is edited, so that a
 * message never sits beside a value it was not about.
 */
export function useFieldErrors(error: unknown) {
  const [edited, setEdited] = useState<string[]>([]);
  const all = fieldErrors(error);
  const shown = Object.fromEntries(Object.entries(all).filter(([field]) => !edited.includes(field)));
  return {
    errors: shown,
    /** Whether the refusal named no field (then its message is shown above the form). */
    general: error !== null && error !== undefined && Object.keys(all).length === 0,
    edited: (field: string) => setEdited((fields) => (fields.includes(field) ? fields : [...fields, field])),
    submitted: () => setEdited([]),
  };
}

/** The names of a form's fields that hold text, which an input edits. */
type TextField<Form> = { [Name in keyof Form]: Form[Name] extends string ? Name : never }[keyof Form] & string;

/**
 * A form's fields bound to its state and to the API's refusal of its last submit (see
 * useFieldErrors): `set(name)` takes an edit of a field and hides its refusal, `field(name)` gives
 * a Field its name, value, error and change handler, and `submit` sends the form through `save`.
 */
export function useFormFields<Form extends object>(
  form: Form,
  setForm: (form: Form) => void,
  save: { error: unknown; mutate: () => void },
) {
  const { errors, general, edited, submitted } = useFieldErrors(save.error);
  const set = (name: keyof Form & string) => (event: { target: { value: string } }) => {
    setForm({ ...form, [name]: event.target.value });
    edited(name);
  };
  const field = (name: TextField<Form>) => ({ name, value: form[name], error: errors[name], onChange: set(name) });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    submitted();
    save.mutate();
  };
  return { errors, general, edited, set, field, submit };
}

/** A page of a list and what the `X-Pagination-*` headers say about the whole. */
export interface ListPage<T> {
  items: T[];
  total: number;
  pageCount: number;
}

export async function listPage<T>(call: Promise<{ data?: T[]; response: Response }>): Promise<ListPage<T>> {
  const { data, response } = await call;
  const items = data ?? [];
  return {
    items,
    total: Number(response.headers.get('X-Pagination-Total-Count') ?? items.length),
    pageCount: Math.max(1, Number(response.headers.get('X-Pagination-Page-Count') ?? 1)),
  };
}
