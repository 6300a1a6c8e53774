import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildWebIfStale } from '../../web/scripts/build-if-stale.ts';
import { imageBytes } from '../helpers/advertiser.ts';
import { launchChromium, lookAt, SHOTS, skipWithoutChromium } from '../helpers/browser.ts';
import { Mailbox } from '../helpers/mailbox.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const skip = skipWithoutChromium;
const PASSWORD = 'a long enough password';

describe('an advertiser in the web app (headless Chromium)', { skip }, () => {
  let server: TestServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const mailbox = new Mailbox();
  const cspErrors: string[] = [];
  let advertiser: { id: number; token: string; email: string; username: string };

  before(async () => {
    buildWebIfStale();
    mkdirSync(SHOTS, { recursive: true });
    await mailbox.start();
    server = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${mailbox.port}`, CURRENCY: 'EUR' } });
    browser = await launchChromium();
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
    const account = await server.createAccount('advertiser', { name: 'Acme Shoes' });
    const me = (await account.client.get('/api/me')).json<{ email: string; username: string }>();
    advertiser = { id: account.id, token: account.token, ...me };
    await server.operator.post(`/api/admin/users/${account.id}/balance`, { amount: 250, comment: 'bank transfer' });
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await mailbox.stop();
  });

  it('sets the invited password, signs in by keyboard and sees the overview', async () => {
    const invitation = await mailbox.next(advertiser.email);
    const link = /https:\/\/\S+\/password\?token=[A-Za-z0-9_-]+/.exec(invitation.text)?.[0] ?? '';
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    await lookAt(page, 'set-password');
    await page.getByLabel('New password').fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('must NOT have fewer than 10 characters').or(page.locator('.field .error')).first().waitFor();
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set.').waitFor();
    await page.getByRole('link', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Sign in to Nativa' }).waitFor();
    await lookAt(page, 'sign-in');
    // Keyboard only: Tab to the login field, type, Tab to the password, Enter.
    for (let presses = 0; presses < 5; presses++) {
      await page.keyboard.press('Tab');
      if (await page.getByLabel('Username or e-mail').evaluate((element) => element === element.ownerDocument.activeElement))
        break;
    }
    await page.keyboard.type(advertiser.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/advertiser');
    await page.getByText('€250.00').first().waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((cookie) => cookie.name === 'nativa_session');
    assert.ok(session?.httpOnly && session.secure && session.sameSite === 'Lax', JSON.stringify(session));
    await page.locator('.chart canvas').waitFor();
    await lookAt(page, 'overview');
  });

  it('creates a campaign, and an ad with pictures from disk whose field errors show beside the fields', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor();
    await page.getByText('No campaigns yet').waitFor();
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.locator('#title-error').waitFor();
    await page.getByLabel('Title').fill('Spring shoes');
    await page.getByLabel('Category').selectOption({ index: 1 });
    // Countries are found by name; the API gets their codes.
    const countries = page.getByRole('group', { name: 'Countries' });
    await countries.getByLabel('Find a country').fill('thai');
    await countries.getByRole('checkbox', { name: 'Thailand (TH)' }).check();
    await countries.getByLabel('Find a country').fill('viet');
    await countries.getByRole('checkbox', { name: 'Vietnam (VN)' }).check();
    await countries.getByRole('button', { name: 'Remove Thailand' }).waitFor();
    await lookAt(page, 'campaign-create');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.getByRole('heading', { name: 'Spring shoes' }).waitFor();
    const campaignPath = new URL(page.url()).pathname;
    assert.match(campaignPath, /^\/advertiser\/campaigns\/\d+$/);

    await page.getByRole('button', { name: 'New ad' }).click();
    await page.getByLabel('Headline').fill('Running shoes at half price');
    await page.getByLabel('Landing page').fill('https://shop.example/shoes');
    await page.getByLabel('Bid per click').fill('0.35');
    await page.getByRole('button', { name: 'Send for moderation' }).click();
    // The API refuses the missing pictures; its message is shown beside each picture field.
    await page.locator('#rectangle-error').waitFor();
    await page.locator('#square-error').waitFor();
    assert.equal(await page.getByLabel('Wide picture (3:2)').getAttribute('aria-invalid'), 'true');

    await page.getByLabel('Wide picture (3:2)').setInputFiles({
      name: 'wide.png',
      mimeType: 'image/png',
      buffer: await imageBytes('png', 600, 400),
    });
    // The message goes once its field is changed: it never sits beside a value it was not about.
    await page.locator('#rectangle-error').waitFor({ state: 'detached' });
    await page.getByLabel('Square picture').setInputFiles({
      name: 'square.jpg',
      mimeType: 'image/jpeg',
      buffer: await imageBytes('jpeg', 400, 400),
    });
    await page.getByLabel('Price in whole units (optional)').fill('1990');
    // The preview is the teaser as blocks draw it: a square block with the square picture, a wide
    // block with the wide one, cut to the wide tile.
    await page.locator('.preview [data-shape="square"] .nativa-teaser img[src^="data:image/jpeg"]').waitFor();
    const widePreview = page.locator('.preview [data-shape="wide"] .nativa-teaser img[src^="data:image/png"]');
    await widePreview.waitFor();
    const wideBox = await widePreview.evaluate((element) => element.getBoundingClientRect());
    assert.ok(Math.abs(wideBox.width / wideBox.height - 164 / 92) < 0.05, `the wide crop: ${wideBox.width}×${wideBox.height}`);
    await lookAt(page, 'ad-create');
    await page.getByRole('button', { name: 'Send for moderation' }).click();
    const ad = page.locator('.ads .ad').first();
    await ad.getByText('Running shoes at half price', { exact: true }).waitFor();
    await ad.locator('img[src*="/api/img/"]').waitFor();
    const loadedWidth = await ad.locator('img').evaluate(
      (element) =>
        new Promise<number>((resolve) => {
          const image = element as unknown as { complete: boolean; naturalWidth: number; onload: unknown; onerror: unknown };
          if (image.complete) resolve(image.naturalWidth);
          image.onload = () => resolve(image.naturalWidth);
          image.onerror = () => resolve(0);
        }),
    );
    assert.ok(loadedWidth > 0, 'the stored picture loads');
    await ad.getByText('In moderation').waitFor();
    await lookAt(page, 'campaign');

    // The API saw what the browser did.
    const campaigns = await server.anonymous.get('/api/advertiser/campaigns?expand=offers', { token: advertiser.token });
    const [campaign] = campaigns.json<{ title: string; geo: string[]; items: number }[]>();
    assert.equal(campaign?.title, 'Spring shoes');
    assert.deepEqual(campaign?.geo, ['TH', 'VN']);
    assert.equal(campaign?.items, 1);
  });

  it('switches an ad and a campaign off, archives the campaign, with every control reachable by keyboard', async () => {
    const adSwitch = page.getByRole('switch', { name: /Ad Running shoes/ });
    const switched = page.waitForResponse(
      (response) => response.url().includes('/api/advertiser/offers/') && response.request().method() === 'PUT',
    );
    await adSwitch.click();
    assert.equal((await switched).status(), 204);
    await page.locator('.ads [role="switch"]:not(:checked)').waitFor();

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Campaigns' }).click();
    const row = page.getByRole('row', { name: /Spring shoes/ });
    await row.waitFor();
    // Everything on the page can be reached with Tab.
    const reached = new Set<string>();
    for (let presses = 0; presses < 40; presses++) {
      await page.keyboard.press('Tab');
      reached.add(
        await page.locator('body').evaluate((body) => {
          const element = body.ownerDocument.activeElement;
          return `${element?.tagName}:${element?.getAttribute('aria-label') ?? element?.textContent?.trim() ?? ''}`;
        }),
      );
    }
    for (const wanted of [
      'INPUT:Spring shoes is on',
      'BUTTON:New campaign',
      'BUTTON:Archive Spring shoes',
      'A:Spring shoes',
      'BUTTON:Sign out',
    ]) {
      assert.ok(reached.has(wanted), `${wanted} in ${[...reached].join(' | ')}`);
    }
    await page.getByRole('switch', { name: 'Spring shoes is on' }).focus();
    await page.keyboard.press('Space');
    await page.locator('tbody [role="switch"]:not(:checked)').waitFor();
    await lookAt(page, 'campaigns');
    await page.getByRole('button', { name: 'Archive Spring shoes' }).click();
    await page.getByText('No campaigns yet').waitFor();
    await page.getByLabel('Show archived').check();
    await row.getByText('Archived').waitFor();
    const stored = (await server.anonymous.get('/api/advertiser/campaigns?archived=0', { token: advertiser.token })).json();
    assert.equal(stored[0].active, false);
    assert.equal(stored[0].archived, true);
  });

  it('shows another tenant’s campaign as not found, never its data', async () => {
    const other = await server.createAccount('advertiser');
    const created = await other.client.post('/api/advertiser/campaigns', { title: 'Secret plans', category_id: 2 });
    await page.goto(`${server.url}/advertiser/campaigns/${created.json().id}`);
    await page.getByRole('heading', { name: 'Campaign not found' }).waitFor();
    assert.equal(await page.getByText('Secret plans').count(), 0);
  });

  it('creates and revokes an API token, then signs out', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }).click();
    await page.getByLabel('Name of the new token').fill('reporting script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = (await page.locator('code.secret').textContent()) ?? '';
    assert.match(token, /^nv_/);
    assert.equal((await server.anonymous.get('/api/me', { token })).status, 200);
    await lookAt(page, 'tokens');
    await page.getByRole('button', { name: 'Revoke reporting script' }).click();
    await page.getByRole('button', { name: 'Revoke reporting script' }).waitFor({ state: 'detached' });
    assert.equal((await server.anonymous.get('/api/me', { token })).status, 401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Nativa' }).waitFor();
    await page.goto(`${server.url}/advertiser`);
    await page.getByRole('heading', { name: 'Sign in to Nativa' }).waitFor();
    assert.deepEqual(cspErrors, [], 'the app runs under its Content-Security-Policy');
  });
});
