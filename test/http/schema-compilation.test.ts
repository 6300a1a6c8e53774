import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Route schemas compile on a route's first request (src/http/lazy-schemas.ts). A server that
 * compiles them all at start proves that every one compiles, and answers as the lazy one does: a
 * refusal's field errors (which Ajv leaves on its function after the call) and a serialized answer.
 */
describe('route schemas compiled on first use', () => {
  let lazy: TestServer;
  let eager: TestServer;
  before(async () => {
    // One after the other: were one of two started together to fail, the other would be left
    // running unclosed (and keep the test process from ever ending).
    lazy = await startTestServer();
    eager = await startTestServer({ eagerSchemas: true });
  });
  after(async () => {
    await Promise.all([lazy?.close(), eager?.close()]);
  });

  it('compile, every one, when a server compiles them at start', () => {
    assert.ok(eager.url.startsWith('https://'));
  });

  it('refuse bad input with the same field errors, each time, and answer alike', async () => {
    const bad = { type: 'advertiser', username: '', email: 'not an address', language: 'xx' };
    const answers = [];
    for (const server of [lazy, eager, lazy]) {
      const refused = await server.operator.post('/api/admin/users', bad);
      assert.equal(refused.status, 422, refused.text);
      answers.push(refused.json());
    }
    assert.deepEqual(answers[0], answers[1]);
    assert.deepEqual(answers[2], answers[0]);
    const [me, sameMe] = await Promise.all([lazy.operator.get('/api/me'), eager.operator.get('/api/me')]);
    assert.deepEqual(Object.keys(me.json()), Object.keys(sameMe.json()));
  });
});
