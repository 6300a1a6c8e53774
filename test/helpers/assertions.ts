import assert from 'node:assert/strict';
import type { TestResponse } from './http-client.ts';

export const FORMATS = [
  { name: 'json', accept: 'application/json' },
  { name: 'xml', accept: 'application/xml' },
] as const;

export type FormatName = (typeof FORMATS)[number]['name'];

/** The parsed body of a response in the format it was asked for. */
export function bodyOf(response: TestResponse, format: FormatName): Record<string, any> {
  return format === 'xml' ? response.xml() : response.json();
}

/**
 * Checks the error body `{name, message, code, status}` in the negotiated format and returns it,
 * with `errors` normalized to an array in both formats.
 */
export function assertError(response: TestResponse, status: number, format: FormatName): Record<string, any> {
  assert.equal(response.status, status, `expected ${status}, got ${response.status}: ${response.text}`);
  const contentType = response.header('content-type') ?? '';
  assert.match(contentType, format === 'xml' ? /^application\/xml/ : /^application\/json/);
  const body = bodyOf(response, format);
  assert.equal(Number(body.status), status);
  assert.equal(typeof body.name, 'string');
  assert.ok(body.name.length > 0);
  assert.equal(typeof body.message, 'string');
  assert.equal(Number.isInteger(Number(body.code)), true);
  if (format === 'xml' && body.errors !== undefined) body.errors = body.errors === '' ? [] : body.errors.item;
  return body;
}

/** The fields named by a 422's `errors`. */
export function failingFields(body: Record<string, any>): string[] {
  return (body.errors ?? []).map((entry: { field: string }) => entry.field);
}
