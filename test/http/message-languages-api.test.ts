import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connect } from 'node:tls';
import { setPassword } from '../helpers/accounts.ts';
import { createCampaign, offerFields } from '../helpers/advertiser.ts';
import type { TestClient, TestResponse } from '../helpers/http-client.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The API writes its human messages in the request's language (docs/api-conventions.md,
 * "Languages of messages"): Russian when `Accept-Language` prefers it, English otherwise, with
 * codes and field names unchanged, in JSON and in XML.
 */

let server: TestServer;
let advertiser: { id: number; client: TestClient };
let campaignId: number;

describe('messages in the request’s language', () => {
  before(async () => {
    server = await startTestServer();
    advertiser = await server.createAccount('advertiser');
    campaignId = await createCampaign(advertiser.client, { title: 'Audio', category_id: 2, geo: 'DE' });
  });

  after(() => server.close());

  const RUSSIAN = { 'Accept-Language': 'ru-RU,ru;q=0.9,en;q=0.8' };
  const CYRILLIC = /[А-Яа-яЁё]/;

  interface Envelope {
    name: string;
    message: string;
    code: number;
    status: number;
    errors?: { field: string; message: string }[];
  }

  function envelope(response: TestResponse, format: 'json' | 'xml'): Envelope {
    if (format === 'json') return response.json<Envelope>();
    const body = response.xml();
    return { ...body, code: Number(body.code), status: Number(body.status), errors: body.errors?.item };
  }

  const badOffer = () => offerFields(campaignId, { discount: 9, description: 'd'.repeat(61), clickPrice: 0 });

  for (const format of ['json', 'xml'] as const) {
    const accept = format === 'json' ? 'application/json' : 'application/xml';

    function postOffer(fields: Record<string, unknown>, headers: Record<string, string> = {}): Promise<TestResponse> {
      if (format === 'json') return advertiser.client.post('/api/advertiser/offers', fields, { headers, accept });
      const elements = Object.entries(fields)
        .map(([name, value]) => `<${name}>${String(value)}</${name}>`)
        .join('');
      return advertiser.client.request('POST', '/api/advertiser/offers', {
        raw: `<?xml version="1.0" encoding="UTF-8"?><request>${elements}</request>`,
        contentType: 'application/xml',
        accept,
        headers,
      });
    }

    describe(`messages in the request's language (${format})`, () => {
      it('writes a 422 in Russian with the same codes and fields as in English', async () => {
        const fields = await badOffer();
        const english = await postOffer(fields);
        const russian = await postOffer(fields, RUSSIAN);
        assert.equal(english.status, 422, english.text);
        assert.equal(russian.status, 422, russian.text);
        const en = envelope(english, format);
        const ru = envelope(russian, format);
        assert.equal(ru.code, en.code);
        assert.equal(ru.name, en.name);
        assert.deepEqual(
          ru.errors?.map((entry) => entry.field),
          en.errors?.map((entry) => entry.field),
        );
        for (const entry of [...(en.errors ?? []), ...(ru.errors ?? [])]) {
          assert.deepEqual(Object.keys(entry).sort(), ['field', 'message'], 'no catalogue key reaches the client');
        }
        const description = (body: Envelope) => body.errors?.find((entry) => entry.field === 'description')?.message;
        assert.equal(description(en), 'Must be at most 60 characters.');
        assert.equal(description(ru), 'Должно быть не длиннее 60 символов.');
        for (const entry of ru.errors ?? []) {
          assert.match(entry.message, CYRILLIC, `${entry.field}: ${entry.message}`);
          assert.ok(ru.message.includes(`${entry.field}: ${entry.message}`), ru.message);
        }
        assert.equal(russian.header('content-language'), 'ru');
        assert.equal(english.header('content-language'), undefined);
        assert.match(russian.header('vary') ?? '', /\bAccept-Language\b/);
        assert.match(english.header('vary') ?? '', /\bAccept-Language\b/);
        if (format === 'xml') {
          assert.match(russian.header('content-type') ?? '', /charset=UTF-8/i);
          assert.ok(russian.text.includes('Должно быть не длиннее 60 символов.'), 'the XML carries the text as UTF-8');
        }
      });

      it('writes English without Accept-Language, and for languages it does not speak', async () => {
        const fields = await badOffer();
        const plain = await postOffer(fields);
        const german = await postOffer(fields, { 'Accept-Language': 'de-DE,de;q=0.9' });
        assert.equal(german.text, plain.text);
        assert.equal(german.header('content-language'), undefined);
        assert.doesNotMatch(plain.text, CYRILLIC);
      });

      it('writes the messages of the schema with Russian plural forms', async () => {
        const fields = { ...(await badOffer()), description: 'ok', title: 't'.repeat(300) };
        const russian = envelope(await postOffer(fields, { 'Accept-Language': 'ru' }), format);
        const title = russian.errors?.find((entry) => entry.field === 'title')?.message ?? '';
        assert.match(title, /^Должно быть не длиннее \d+ символ(а|ов)\.$/, title);
      });

      it('writes a wrong password in Russian', async () => {
        const account = await server.createAccount('publisher');
        await setPassword(server.server.context.db, account.id, 'the right one, surely');
        const row = await server.server.context.db
          .selectFrom('accounts')
          .select('username')
          .where('id', '=', account.id)
          .executeTakeFirstOrThrow();
        const answer = await server.anonymous.post(
          '/api/session',
          { login: row.username, password: 'a wrong one' },
          { headers: { Origin: server.url, ...RUSSIAN }, accept },
        );
        assert.equal(answer.status, 401, answer.text);
        const body = envelope(answer, format);
        assert.equal(body.code, 2001);
        assert.equal(body.message, 'Неверный логин или пароль.');
        assert.equal(answer.header('content-language'), 'ru');
      });

      it('writes an insufficient balance in Russian and changes nothing', async () => {
        const account = await server.createAccount('publisher');
        const answer = await server.operator.post(
          `/api/admin/users/${account.id}/balance`,
          { amount: '-5', comment: 'a debit the balance cannot bear' },
          { headers: RUSSIAN, accept },
        );
        assert.equal(answer.status, 422, answer.text);
        const body = envelope(answer, format);
        assert.deepEqual(body.errors, [{ field: 'amount', message: 'Недостаточно средств на балансе для этого изменения.' }]);
        assert.equal(body.message, 'amount: Недостаточно средств на балансе для этого изменения.');
        const user = await server.operator.get(`/api/admin/users/${account.id}`);
        assert.equal(Number(user.json<{ balance: string | number }>().balance), 0);
      });
    });
  }

  describe('framework errors in Russian', () => {
    const cases: { what: string; send: () => Promise<TestResponse>; status: number; message: string }[] = [
      {
        what: 'an unknown route',
        send: () => advertiser.client.get('/api/no-such-thing', { headers: RUSSIAN }),
        status: 404,
        message: 'Страница не найдена.',
      },
      {
        what: 'a method the path does not take',
        send: () => advertiser.client.request('PATCH', '/api/advertiser/campaigns', { headers: RUSSIAN }),
        status: 405,
        message: 'Метод не разрешён. Этот URL принимает только методы: GET, HEAD, POST, OPTIONS.',
      },
      {
        what: 'a body type the API does not read',
        send: () =>
          advertiser.client.request('POST', '/api/advertiser/campaigns', { raw: 'x', contentType: 'text/csv', headers: RUSSIAN }),
        status: 415,
        message: 'Неподдерживаемый тип содержимого.',
      },
      {
        what: 'a body that is not JSON',
        send: () => advertiser.client.request('POST', '/api/advertiser/campaigns', { raw: '{"title":', headers: RUSSIAN }),
        status: 400,
        message: 'Тело запроса не является корректным JSON.',
      },
      {
        what: 'a malformed percent-encoding',
        send: () => advertiser.client.get('/api/advertiser/campaigns/%E0%A4%A', { headers: RUSSIAN }),
        status: 400,
        message: 'Некорректный URL (ошибка в процентном кодировании).',
      },
      {
        what: 'a path parameter over the length limit',
        send: () => server.operator.get(`/api/admin/users/${'9'.repeat(200)}`, { headers: RUSSIAN }),
        status: 414,
        message: 'Параметр пути слишком длинный.',
      },
      {
        what: 'a missing token',
        send: () => server.anonymous.get('/api/advertiser/campaigns', { headers: RUSSIAN }),
        status: 401,
        message: 'Отсутствует заголовок Auth-Token.',
      },
      {
        what: 'an unknown token',
        send: () => server.anonymous.get('/api/advertiser/campaigns', { headers: RUSSIAN, token: 'not-a-token' }),
        status: 401,
        message: 'Запрос отправлен с недействительными учётными данными.',
      },
    ];
    for (const { what, send, status, message } of cases) {
      it(`answers ${what} in Russian`, async () => {
        const answer = await send();
        assert.equal(answer.status, status, answer.text);
        assert.equal(answer.json<Envelope>().message, message);
        assert.equal(answer.header('content-language'), 'ru');
        assert.match(answer.header('vary') ?? '', /\bAccept-Language\b/);
      });
    }
  });

  describe('a request Node cannot parse', () => {
    it('gets its envelope in Russian on the raw socket', async () => {
      const url = new URL(server.url);
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: url.hostname, port: Number(url.port), ca: server.tls.cert }, () => {
          socket.write(
            'FROBNICATE /api/health HTTP/1.1\r\nHost: localhost\r\nAccept-Language: ru\r\nAccept: application/xml\r\n\r\n',
          );
        });
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
      });
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      assert.match(head, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.match(head, /\r\nContent-Language: ru\r\n/);
      assert.match(head, /\r\nContent-Type: application\/xml; charset=UTF-8\r\n/);
      const length = Number(/\r\nContent-Length: (\d+)/.exec(head)?.[1]);
      assert.equal(Buffer.byteLength(body), length, 'Content-Length counts the bytes of the UTF-8 text');
      assert.ok(body.includes('<message>Недопустимый метод запроса.</message>'), body);
    });
  });

  describe('what the language leaves alone', () => {
    it('adds nothing to successful answers', async () => {
      const answer = await advertiser.client.get('/api/advertiser/campaigns', { headers: RUSSIAN });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.header('content-language'), undefined);
      assert.doesNotMatch(answer.header('vary') ?? '', /Accept-Language/);
    });

    it('keeps the serving path English, with no Vary on the language', async () => {
      const answer = await server.anonymous.get('/api/serve/blocks/2147483000/teasers', { headers: RUSSIAN });
      assert.equal(answer.status, 404, answer.text);
      assert.equal(answer.json<Envelope>().message, 'Block not found.');
      assert.equal(answer.header('content-language'), undefined);
      assert.doesNotMatch(answer.header('vary') ?? '', /Accept-Language/);
    });
  });
});
