import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface ErrorAnswer {
  code: number;
  message: string;
  errors?: { field: string; message: string }[];
}

/** A JSON object of `count` keys, written directly: `{"k0":1,"k1":1,…}`. */
function manyKeys(count: number, extra: Record<string, unknown> = {}): string {
  const parts = Object.entries(extra).map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
  for (let index = 0; index < count; index++) parts.push(`"k${index}":1`);
  return `{${parts.join(',')}}`;
}

// What a body may cost before it is refused, and what an error may echo of it (docs/security.md).
describe('bounds on request bodies and on what errors echo', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it('refuses a sign-in body of 400,000 keys with a small 413, and health still answers', async () => {
    const body = manyKeys(400_000, { login: 'someone', password: 'x' });
    assert.ok(body.length > 4_000_000);
    const answer = await server.anonymous.request('POST', '/api/session', { raw: body, contentType: 'application/json' });
    assert.equal(answer.status, 413, answer.text.slice(0, 200));
    assert.ok(answer.body.length < 1000, `a small answer, not ${answer.body.length} bytes`);
    assert.equal(answer.json<ErrorAnswer>().code, 1003);
    assert.equal((await server.anonymous.get('/api/health')).status, 200);
  });

  it('refuses a body of more members than BODY_MAX_MEMBERS before validating it (413, code 1009)', async () => {
    const advertiser = await server.createAccount('advertiser');
    const body = manyKeys(50_000, { title: 'x' });
    const answer = await advertiser.client.request('POST', '/api/advertiser/campaigns', {
      raw: body,
      contentType: 'application/json',
    });
    assert.equal(answer.status, 413, answer.text.slice(0, 200));
    assert.equal(answer.json<ErrorAnswer>().code, 1009);
    assert.ok(answer.body.length < 1000, `a small answer, not ${answer.body.length} bytes`);
    let nested: unknown = 1;
    for (let depth = 0; depth < 40; depth++) nested = { a: nested };
    const deep = await advertiser.client.post('/api/advertiser/campaigns', { title: 'x', deep: nested });
    assert.equal(deep.status, 413);
    assert.equal(deep.json<ErrorAnswer>().code, 1009);
    const form = await advertiser.client.request('POST', '/api/advertiser/campaigns', {
      raw: Array.from({ length: 20_000 }, (_, index) => `k${index}=1`).join('&'),
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.equal(form.status, 413);
  });

  it('names at most ten unknown fields, each cut short, and says how many more there are', async () => {
    const advertiser = await server.createAccount('advertiser');
    const longName = 'x'.repeat(5000);
    const answer = await advertiser.client.request('POST', '/api/advertiser/campaigns', {
      raw: manyKeys(5000, { [longName]: 1 }),
      contentType: 'application/json',
    });
    assert.equal(answer.status, 422);
    const error = answer.json<ErrorAnswer>();
    assert.ok(answer.body.length < 4000, `a short error, not ${answer.body.length} bytes`);
    assert.equal(error.errors?.length, 11, 'ten fields and the count of the others');
    assert.ok((error.errors ?? []).every((entry) => entry.field.length <= 65));
    const last = error.errors?.at(-1);
    assert.equal(last?.field, 'body');
    // 5001 unknown fields and the required title and description: ten named, 4993 counted.
    assert.equal(last?.message, 'And 4993 more fields are not valid.');
    const russian = await advertiser.client.request('POST', '/api/advertiser/campaigns', {
      raw: manyKeys(5000),
      contentType: 'application/json',
      headers: { 'Accept-Language': 'ru' },
    });
    assert.match(russian.json<ErrorAnswer>().errors?.at(-1)?.message ?? '', /^И ещё 4992 пол/);
  });

  it('gives the public account routes a body limit and a rate limit per address of their own', async () => {
    const limited = await startTestServer({ config: { publicRateLimitPerSecond: 2 } });
    try {
      const reset = () => limited.anonymous.post('/api/password-reset', { login: 'nobody' });
      assert.equal((await reset()).status, 202);
      assert.equal((await reset()).status, 202);
      const refused = await reset();
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.json<ErrorAnswer>().code, 2006);
      assert.ok(Number(refused.header('retry-after')) >= 1);
      assert.equal((await limited.anonymous.post('/api/session', { login: 'nobody', password: 'x' })).status, 429);
      // A token's own budget is apart: the address limit is for the public routes only.
      assert.equal((await limited.operator.get('/api/me')).status, 200);
      limited.clock.advance(2000);
      const large = await limited.anonymous.post('/api/session', { login: 'nobody', password: 'x'.repeat(20_000) });
      assert.equal(large.status, 413);
      assert.equal(large.json<ErrorAnswer>().code, 1003);
    } finally {
      await limited.close();
    }
  });
});
