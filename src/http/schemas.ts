import { type TSchema, Type } from '@sinclair/typebox';
import { ERRORS } from '../errors.ts';
import { Id } from './input-types.ts';

/** Shapes shared by many routes. Every property carries a description: that is the API documentation. */

export const IdParams = Type.Object({
  id: Id('Numeric identifier.'),
});

/** A boolean input; `true/false/1/0` are all accepted (the conventions layer normalizes `"1"`/`"0"`). */
export const Flag = (description: string) => Type.Boolean({ description });

export const IsoDate = (description: string) =>
  Type.String({ format: 'date', description: `${description} ISO 8601 date, YYYY-MM-DD.` });

const ERROR_ENTRIES = Object.entries(ERRORS);

/**
 * The catalogue of error codes as a shared component: the numbers, their names
 * (`x-enum-varnames`, which the SDK's ERROR_CODES is generated from) and what each means.
 */
export const ErrorCodeSchema = Type.Unsafe<number>({
  $id: 'ErrorCode',
  type: 'integer',
  enum: ERROR_ENTRIES.map(([, entry]) => entry.code),
  'x-enum-varnames': ERROR_ENTRIES.map(([name]) => name),
  description: [
    'A stable error code: branch on it, never on `message`. A code never changes meaning and is never reused; new conditions get new codes.',
    '',
    ...ERROR_ENTRIES.map(([name, entry]) => `- ${entry.code} \`${name}\`: ${entry.description}`),
  ].join('\n'),
});

export const ErrorBodySchema = Type.Object(
  {
    name: Type.String({ description: 'The status phrase.' }),
    message: Type.String({
      description:
        'What went wrong, for a person, in the language `Accept-Language` prefers: English (the default) or Russian (`ru`); an answer in Russian carries `Content-Language: ru`. Only this text and `errors[].message` change with the language.',
    }),
    code: Type.Ref(ErrorCodeSchema),
    status: Type.Integer({ description: 'The HTTP status.' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          field: Type.String({ description: 'The failing field.' }),
          message: Type.String({ description: 'Why it failed, for a person, in the language of `message`.' }),
        }),
        { description: 'With 422: one entry per failing field.' },
      ),
    ),
  },
  {
    $id: 'Error',
    description:
      'The error body of every failed request. Its human texts follow `Accept-Language` (English by default, or Russian); `name`, `code`, `status` and `errors[].field` never change with the language.',
  },
);

/** Standard error responses a route documents besides its success. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref(ErrorBodySchema)]));
}

export const NoContent = Type.Null({ description: 'No content.' });

/**
 * A success that is not a JSON document (an image, a script, a page, metrics text): its media
 * type as the response sets it, and what the body is. Negotiation accepts the type on that route
 * (an `Accept: image/*` is no 415 there) and the OpenAPI document declares it.
 */
export function mediaAnswer(
  description: string,
  mediaType: string,
  body: 'bytes' | 'text' = 'bytes',
  headers?: Record<string, { description: string }>,
) {
  const schema = body === 'bytes' ? { type: 'string', format: 'binary' } : { type: 'string' };
  const declared =
    headers && Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, { type: 'string', ...value }]));
  return {
    description,
    content: { [mediaType]: { schema: Type.Unsafe<string | Buffer>(schema) } },
    ...(declared && { headers: declared }),
  };
}
