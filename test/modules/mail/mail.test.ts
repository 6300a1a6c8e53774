import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { startTestServer, type TestServer } from '../../helpers/server.ts';

interface Received {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP listener on loopback that hands every message it accepts to the waiting test. */
class Mailbox {
  private server: SMTPServer | undefined;
  private readonly waiting: ((message: Received) => void)[] = [];
  private readonly received: Received[] = [];
  port = 0;

  async start(port = 0): Promise<void> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          const message = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((address) => address.address),
            raw: Buffer.concat(chunks).toString('utf8'),
          };
          // The invitation of every account the operator creates is not what these tests read.
          if (message.raw.includes('Subject: Your Nativa account: choose your password')) {
            callback();
            return;
          }
          const waiter = this.waiting.shift();
          if (waiter) waiter(message);
          else this.received.push(message);
          callback();
        });
      },
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
    this.port = (server.server.address() as AddressInfo).port;
  }

  next(): Promise<Received> {
    const ready = this.received.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  stop(): Promise<void> {
    const server = this.server;
    return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }
}

/** Undoes quoted-printable soft line breaks and escapes, enough to read links and headers. */
const decodeQuotedPrintable = (text: string): string =>
  text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

describe('registration e-mail and mailbox confirmation', () => {
  let server: TestServer;
  const mailbox = new Mailbox();
  before(async () => {
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}?from=ads@nativa.test` } });
  });
  after(async () => {
    await server.close();
    await mailbox.stop();
  });

  const mailer = () => server.server.context.mailer;

  const outboxOf = async (userId: number) => {
    const response = await server.operator.get(`/api/admin/outbox?userId=${userId}`);
    assert.equal(response.status, 200, response.text);
    return response.json()[0];
  };

  it('sends a link to choose a password and a confirmation link over SMTP; the link confirms the mailbox once', async () => {
    const parent = await server.createAccount('advertiser', { name: 'Acme Agency' });
    const created = await parent.client.post('/api/advertiser/users', { user: 'mail_client', email: 'mail.client@example.test' });
    assert.equal(created.status, 201, created.text);
    const user = created.json();
    assert.equal(user.emailConfirmed, false);

    const message = await mailbox.next();
    assert.deepEqual(message.to, ['mail.client@example.test']);
    assert.equal(message.from, 'ads@nativa.test');
    const raw = decodeQuotedPrintable(message.raw);
    assert.match(raw, /^Subject: Your Nativa account: confirm your e-mail$/m);
    assert.match(raw, /Acme Agency has opened a Nativa advertiser account for you/);
    assert.match(raw, /Login: mail_client/);
    assert.doesNotMatch(raw, /password:/i);
    assert.match(raw, new RegExp(`${server.url}/password\\?token=[A-Za-z0-9_-]{43}`));
    const link = new RegExp(`${server.url}/api/confirm/([A-Za-z0-9_-]{43})`).exec(raw);
    assert.ok(link, raw);

    // Delivered: the outbox says so, and the links no longer sit in the database.
    await mailer().idle();
    const sent = await outboxOf(user.id);
    assert.equal(sent.status, 'sent');
    assert.equal(sent.attempts, 1);
    assert.equal(sent.text, '');
    assert.ok(sent.sentAt);

    const confirmed = await server.anonymous.get(link[0]);
    assert.equal(confirmed.status, 200, confirmed.text);
    assert.deepEqual(confirmed.json(), { userId: user.id, email: 'mail.client@example.test', emailConfirmed: true });
    const after = await parent.client.get(`/api/advertiser/users/${user.id}`);
    assert.equal(after.json().emailConfirmed, true);
    const again = await server.anonymous.get(link[0]);
    assert.equal(again.status, 404);
    const againInBrowser = await server.anonymous.get(link[0], { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    assert.equal(againInBrowser.status, 404);
    assert.match(againInBrowser.header('content-type') ?? '', /^text\/html/);
  });

  it('answers browsers with a page, and refuses expired links (410) and unknown ones (404)', async () => {
    const parent = await server.createAccount('advertiser');
    const first = (await parent.client.post('/api/advertiser/users', { user: 'browser_client', email: 'b@example.test' })).json();
    const firstLink =
      decodeQuotedPrintable((await mailbox.next()).raw).match(/https:\S+\/api\/confirm\/[A-Za-z0-9_-]+/)?.[0] ?? '';
    const second = (
      await parent.client.post('/api/advertiser/users', { user: 'late_client', email: 'late@example.test' })
    ).json();
    const secondLink =
      decodeQuotedPrintable((await mailbox.next()).raw).match(/https:\S+\/api\/confirm\/[A-Za-z0-9_-]+/)?.[0] ?? '';

    // Chromium's Accept: it admits XML (q=0.9), and the page still goes out as HTML.
    const page = await server.anonymous.get(firstLink, {
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
    });
    assert.equal(page.status, 200);
    assert.match(page.header('content-type') ?? '', /^text\/html/);
    assert.match(page.text, /^<!doctype html>\n<html lang="en">.*E-mail confirmed/s);
    assert.equal((await parent.client.get(`/api/advertiser/users/${first.id}`)).json().emailConfirmed, true);

    server.clock.advance(7 * 24 * 3600 * 1000 + 1);
    const expired = await server.anonymous.get(secondLink, { accept: 'application/xml' });
    assert.equal(expired.status, 410);
    assert.equal(expired.xml().status, '410');
    assert.equal((await parent.client.get(`/api/advertiser/users/${second.id}`)).json().emailConfirmed, false);
    assert.equal((await server.anonymous.get('/api/confirm/not-a-real-token')).status, 404);

    // The operator sends a new link; it carries no password and confirms the mailbox.
    const resent = await server.operator.post(`/api/admin/users/${second.id}/confirmation`);
    assert.equal(resent.status, 201, resent.text);
    assert.equal(resent.json().status, 'sent');
    const fetched = await server.operator.get(new URL(resent.header('location') ?? '').pathname);
    assert.equal(fetched.json().id, resent.json().id);
    const reminder = decodeQuotedPrintable((await mailbox.next()).raw);
    assert.doesNotMatch(reminder, /Password/);
    const newLink = reminder.match(/https:\S+\/api\/confirm\/[A-Za-z0-9_-]+/)?.[0] ?? '';
    assert.equal((await server.anonymous.get(newLink)).status, 200);
    assert.equal((await parent.client.get(`/api/advertiser/users/${second.id}`)).json().emailConfirmed, true);
    const already = await server.operator.post(`/api/admin/users/${second.id}/confirmation`);
    assert.equal(already.status, 422);
    assert.equal((await server.operator.post('/api/admin/users/999999/confirmation')).status, 404);
    assert.equal((await parent.client.post(`/api/admin/users/${second.id}/confirmation`)).status, 403);
  });

  it('keeps the registration when SMTP is down: the message is failed in the outbox and can be resent', async () => {
    await mailbox.stop();
    const parent = await server.createAccount('advertiser');
    const created = await parent.client.post('/api/advertiser/users', { user: 'offline_client', email: 'offline@example.test' });
    assert.equal(created.status, 201, created.text);
    await mailer().idle();
    const failed = await outboxOf(created.json().id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.attempts, 1);
    assert.notEqual(failed.error, '');
    assert.match(failed.text, /\/password\?token=…$/m, 'an operator sees where the link leads, not its token');

    const failedList = await server.operator.get('/api/admin/outbox?status=failed', { accept: 'application/xml' });
    assert.equal(failedList.status, 200);
    assert.ok(failedList.xml().item.some((item: { id: string }) => item.id === String(failed.id)));

    await mailbox.start(mailbox.port);
    const resent = await server.operator.post(`/api/admin/outbox/${failed.id}/send`);
    assert.equal(resent.status, 200, resent.text);
    assert.equal(resent.json().status, 'sent');
    assert.equal(resent.json().attempts, 2);
    const message = await mailbox.next();
    assert.deepEqual(message.to, ['offline@example.test']);
    assert.match(decodeQuotedPrintable(message.raw), /\/password\?token=[A-Za-z0-9_-]{43}/, 'the e-mail carries the whole link');
    const twice = await server.operator.post(`/api/admin/outbox/${failed.id}/send`);
    assert.equal(twice.status, 422);
    assert.equal(twice.json().errors[0].field, 'id');
    assert.equal((await server.operator.post('/api/admin/outbox/999999/send')).status, 404);
  });

  it('answers the registration before the SMTP server does: the background sender delivers it', async () => {
    // An SMTP server that accepts the connection and then says nothing: a request that waited for
    // it would hang until the greeting timeout.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    const stalled = await startTestServer({
      env: { SMTP_URL: `smtp://127.0.0.1:${(silent.address() as AddressInfo).port}` },
    });
    try {
      const parent = await stalled.createAccount('advertiser');
      const created = await parent.client.post('/api/advertiser/users', {
        user: 'patient_client',
        email: 'patient@example.test',
      });
      assert.equal(created.status, 201, created.text);
      const queued = (await stalled.operator.get(`/api/admin/outbox?userId=${created.json().id}`)).json()[0];
      assert.deepEqual([queued.status, queued.attempts], ['queued', 0], 'answered while the message was still being sent');
      for (const socket of sockets) socket.destroy();
      await stalled.server.context.mailer.idle();
      const failed = (await stalled.operator.get(`/api/admin/outbox?userId=${created.json().id}`)).json()[0];
      assert.deepEqual([failed.status, failed.attempts], ['failed', 1]);
    } finally {
      await stalled.close();
      silent.close();
    }
  });

  it('retries a failed message in the background with backoff', async () => {
    await mailbox.stop();
    const parent = await server.createAccount('advertiser');
    const created = await parent.client.post('/api/advertiser/users', { user: 'retried_client', email: 'retried@example.test' });
    assert.equal(created.status, 201, created.text);
    await mailer().idle();
    assert.equal((await outboxOf(created.json().id)).status, 'failed');
    await mailbox.start(mailbox.port);
    // Not due before a minute has passed.
    server.clock.advance(59_000);
    mailer().wake();
    await mailer().idle();
    assert.deepEqual([(await outboxOf(created.json().id)).status, (await outboxOf(created.json().id)).attempts], ['failed', 1]);
    server.clock.advance(1_000);
    mailer().wake();
    await mailer().idle();
    const sent = await outboxOf(created.json().id);
    assert.deepEqual([sent.status, sent.attempts], ['sent', 2]);
    assert.deepEqual((await mailbox.next()).to, ['retried@example.test']);
  });

  it('never sends one message twice when two instances share the outbox', async () => {
    const second = await startTestServer({
      database: server.server.context.database,
      env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}` },
    });
    try {
      const { db } = server.server.context;
      const now = new Date(server.clock.now());
      await db.updateTable('mail_outbox').set({ next_attempt_at: null }).where('next_attempt_at', 'is not', null).execute();
      const rows = Array.from({ length: 30 }, (_, index) => ({
        kind: 'test',
        account_id: null,
        recipient: `twice-${index}@example.test`,
        subject: 'once',
        body_text: 'once',
        sent_at: null,
        next_attempt_at: now,
        created_at: now,
      }));
      await db.insertInto('mail_outbox').values(rows).execute();
      second.clock.set(server.clock.now());
      mailer().wake();
      second.server.context.mailer.wake();
      await Promise.all([mailer().idle(), second.server.context.mailer.idle()]);
      const received: string[] = [];
      for (let index = 0; index < rows.length; index++) received.push(...(await mailbox.next()).to);
      assert.deepEqual(received.sort(), rows.map((row) => row.recipient).sort());
      const stored = await db.selectFrom('mail_outbox').select(['status', 'attempts']).where('kind', '=', 'test').execute();
      assert.ok(stored.every((row) => row.status === 'sent' && row.attempts === 1));
    } finally {
      await second.close();
    }
  });

  it('shows the outbox to operators only, paginated', async () => {
    const advertiser = await server.createAccount('advertiser');
    assert.equal((await advertiser.client.get('/api/admin/outbox')).status, 403);
    const page = await server.operator.get('/api/admin/outbox?per-page=1');
    assert.equal(page.status, 200);
    assert.equal(page.json().length, 1);
    assert.ok(Number(page.header('x-pagination-total-count')) >= 4);
    assert.equal((await server.operator.get('/api/admin/outbox?status=lost')).status, 422);
  });
});
