import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import jsQRModule from 'jsqr';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { asBrowser, sessionOf, setPassword, TEST_PASSWORD, totpCode } from '../helpers/accounts.ts';
import { browserForThisFile, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { freePort } from '../helpers/network.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
// jsqr is CommonJS whose types declare an ES default export: at run time the module itself is the function.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default;
const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** The text a QR code on the page carries, read from a screenshot of it. */
async function readQrCode(page: Page): Promise<string | undefined> {
  const png = await page.locator('svg.qr-code').screenshot();
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return jsQR(new Uint8ClampedArray(data.buffer, data.byteOffset, data.length), info.width, info.height)?.data;
}

/**
 * Two-factor sign-in, recovery codes, passkeys and the session list in Chromium. Passkeys need a
 * domain name (browsers refuse an IP address as RP ID) and a known origin, so the server is
 * reached as https://localhost:PORT and told so with PUBLIC_URL; Chromium's virtual authenticator
 * (CDP WebAuthn domain) stands in for a phone or a security key.
 */
const sharedBrowser = browserForThisFile();

describe('two-factor sign-in, passkeys and sessions in the browser (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const cspErrors: string[] = [];
  let account: { id: number; username: string };
  let secret = '';
  let recoveryCodes: string[] = [];

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    origin = `https://localhost:${port}`;
    server = await startTestServer({ env: { PORT: String(port), PUBLIC_URL: origin } });
    browser = sharedBrowser();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });
    const created = await server.createAccount('advertiser', { name: 'Ada Security' });
    await setPassword(server.server.context.db, created.id);
    account = { id: created.id, username: (await created.client.get('/api/me')).json().username };
  });
  after(async () => {
    await server?.close();
  });

  async function signInWithPassword(): Promise<void> {
    await page.goto(`${origin}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(account.username);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  async function signOut(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: /Sign in to Nativa/ }).waitFor();
  }

  it('turns on two-factor sign-in with the QR code in the page and a code, and shows ten recovery codes once', async () => {
    await signInWithPassword();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${origin}/account`);
    const section = page.getByRole('region', { name: 'Two-factor sign-in' });
    await section.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    await page.locator('svg.qr-code').waitFor();
    secret = (await section.locator('code.secret').textContent()) ?? '';
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = await readQrCode(page);
    assert.ok(uri, 'the QR code reads');
    assert.equal(new URL(uri).searchParams.get('secret'), secret, 'the QR code carries the key shown');
    await lookAt(page, 'account-two-factor-enrol');

    await section.getByRole('textbox', { name: 'Code' }).fill('000000');
    await section.getByRole('button', { name: 'Confirm' }).click();
    await section.getByText('This is not the current code of the authenticator app.').waitFor();
    await section.getByRole('textbox', { name: 'Code' }).fill(totpCode(secret, server.clock.now()));
    await section.getByRole('button', { name: 'Confirm' }).click();
    const list = page.getByRole('list', { name: 'Recovery codes' });
    await list.waitFor();
    recoveryCodes = (await list.getByRole('listitem').allTextContents()).map((code) => code.trim());
    assert.equal(recoveryCodes.length, 10);
    await section.getByText('Recovery codes left: 10 of 10.').waitFor();
    await lookAt(page, 'account-two-factor-on');
    // Shown once: a reload has them no more.
    await page.reload();
    await section.getByText(/Recovery codes left: 10/).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Recovery codes' }).count(), 0);
  });

  it('asks for the code after the password, and takes a recovery code once instead', async () => {
    await signOut();
    server.clock.advance(30_000);
    await signInWithPassword();
    const codeForm = page.getByRole('form', { name: 'Two-factor code' });
    await codeForm.waitFor();
    await lookAt(page, 'sign-in-code');
    await codeForm.getByLabel('Code from your authenticator app').fill('123456');
    await codeForm.getByRole('button', { name: 'Sign in' }).click();
    await codeForm.getByText('Wrong code.').waitFor();
    await codeForm.getByLabel('Code from your authenticator app').fill(totpCode(secret, server.clock.now()));
    await codeForm.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();

    await signOut();
    await signInWithPassword();
    const [recovery] = recoveryCodes;
    assert.ok(recovery);
    await codeForm.getByLabel('Code from your authenticator app').fill(recovery);
    await codeForm.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${origin}/account`);
    await page.getByText('Recovery codes left: 9 of 10.').waitFor();

    await signOut();
    await signInWithPassword();
    await codeForm.getByLabel('Code from your authenticator app').fill(recovery);
    await codeForm.getByRole('button', { name: 'Sign in' }).click();
    await codeForm.getByText('Wrong code.').waitFor();
    server.clock.advance(30_000);
    await codeForm.getByLabel('Code from your authenticator app').fill(totpCode(secret, server.clock.now()));
    await codeForm.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
  });

  it('registers a passkey and signs in with it, no login or password typed', async () => {
    await page.goto(`${origin}/account`);
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByText('No passkeys.').waitFor();
    await section.getByLabel('Name of the new passkey').fill('Laptop');
    await section.getByRole('button', { name: 'Add a passkey' }).click();
    await section.getByText('Passkey “Laptop” added.').waitFor();
    await section
      .getByRole('row', { name: /Laptop/ })
      .getByRole('cell', { name: 'never' })
      .waitFor();
    await lookAt(page, 'account-passkeys');

    await signOut();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.goto(`${origin}/account`);
    await section
      .getByRole('row', { name: /Laptop/ })
      .getByRole('cell', { name: 'never' })
      .waitFor({ state: 'detached' });
    const stored = await server.server.context.db.selectFrom('passkeys').selectAll().execute();
    assert.equal(stored.length, 1);
    assert.equal(stored[0]?.account_id, account.id);
    assert.notEqual(stored[0]?.last_used_at, null);
  });

  it('lists where the account is signed in and signs out everywhere else', async () => {
    // Another browser signs in through the API: password, then a code.
    server.clock.advance(30_000);
    const first = await server.anonymous.post(
      '/api/session',
      { login: account.username, password: TEST_PASSWORD },
      { headers: { Origin: origin, 'User-Agent': FIREFOX } },
    );
    assert.equal(first.status, 202);
    const other = await server.anonymous.post(
      '/api/session/second-factor',
      { ticket: first.json().ticket, code: totpCode(secret, server.clock.now()) },
      { headers: { Origin: origin, 'User-Agent': FIREFOX } },
    );
    const otherBrowser = asBrowser(server, sessionOf(other));
    assert.equal((await otherBrowser('GET', '/api/me')).status, 200);

    await page.reload();
    const section = page.getByRole('region', { name: 'Where you’re signed in' });
    const firefox = section.getByRole('row', { name: /Firefox 133 on Windows/ });
    await firefox.waitFor();
    await firefox.getByRole('cell', { name: /password and code/ }).waitFor();
    const current = section.getByRole('row', { name: /this browser/ });
    await current.getByRole('cell', { name: /passkey/ }).waitFor();
    await current.getByRole('cell', { name: '127.0.0.0' }).waitFor();
    await lookAt(page, 'account-sessions');

    await section.getByRole('button', { name: 'End all other sessions' }).click();
    await section.getByText(/Every other session has ended \(\d+ sessions?\)/).waitFor();
    await firefox.waitFor({ state: 'detached' });
    assert.equal((await otherBrowser('GET', '/api/me')).status, 401, 'the other browser is signed out');
    assert.equal(await section.getByRole('row').count(), 2, 'the header and this browser');

    const actions = (await asBrowser(server, sessionOf(other))('GET', '/api/me/audit')).status;
    assert.equal(actions, 401);
    const audit = (await server.operator.get(`/api/admin/audit?accountId=${account.id}`)).json() as { action: string }[];
    const seen = new Set(audit.map((entry) => entry.action));
    for (const action of ['two_factor.enable', 'session.sign_in', 'session.sign_out', 'passkey.add', 'session.revoke_others']) {
      assert.ok(seen.has(action), `${action} is in the audit trail`);
    }
  });

  it('removes the passkey; it signs in no more', async () => {
    const section = page.getByRole('region', { name: 'Passkeys' });
    await section.getByRole('button', { name: 'Remove Laptop' }).click();
    await section.getByText('No passkeys.').waitFor();
    await signOut();
    await page.getByRole('button', { name: 'Use a passkey' }).click();
    await page.getByText('This passkey was not accepted. Use another one, or your password.').waitFor();
    await lookAt(page, 'sign-in-passkey-refused');
    assert.deepEqual(cspErrors, []);
  });
});

describe('an operator who must have two-factor sign-in is led to enrol first (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;

  before(async () => {
    buildWebIfStale();
    server = await startTestServer({ env: { REQUIRE_2FA_FOR: 'operator' } });
    browser = sharedBrowser();
  });
  after(async () => {
    await server?.close();
  });

  it('shows only the enrolment until a code is confirmed, then the operator’s pages', async () => {
    const operator = await server.createAccount('operator');
    await setPassword(server.server.context.db, operator.id);
    const username = (await operator.client.get('/api/me')).json().username;
    const context = await browser.newContext({
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      locale: 'en-GB',
    });
    const page = await context.newPage();
    await page.goto(`${server.url}/sign-in`);
    await page.getByLabel('Username or e-mail').fill(username);
    await page.getByLabel('Password').fill(TEST_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Turn on two-factor sign-in' }).waitFor();
    await page.goto(`${server.url}/operator/accounts`);
    await page.getByRole('heading', { name: 'Turn on two-factor sign-in' }).waitFor();
    await page.getByText('Your account must have two-factor sign-in. Turn it on to go on.').waitFor();
    await page.getByRole('button', { name: 'Turn on two-factor sign-in' }).click();
    const secret = (await page.locator('code.secret').textContent()) ?? '';
    await lookAt(page, 'operator-enrolment-required');
    await page.getByRole('textbox', { name: 'Code' }).fill(totpCode(secret, server.clock.now()));
    await page.getByRole('button', { name: 'Confirm' }).click();
    // The recovery codes stay until the operator says they are kept.
    await page.getByRole('button', { name: 'I have kept my recovery codes' }).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').count(), 10);
    await lookAt(page, 'operator-enrolment-codes');
    await page.getByRole('button', { name: 'I have kept my recovery codes' }).click();
    await page.getByRole('heading', { name: 'Accounts' }).waitFor();
    await context.close();
  });
});
