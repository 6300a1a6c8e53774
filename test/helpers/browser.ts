import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';

const AXE = readFileSync(path.join(import.meta.dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
/** Debian's Chromium, or the one CHROMIUM_PATH names. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A browser test's `skip`: false where Chromium is, else why it is not run. */
export const skipWithoutChromium: string | false = existsSync(CHROMIUM)
  ? false
  : `no Chromium at ${CHROMIUM} (install Debian's chromium or set CHROMIUM_PATH)`;

/** Headless Chromium as every browser test runs it (never a downloaded browser). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/**
 * One Chromium for a whole test file, however many suites it has: launched before the file's
 * first test, closed after its last (a launch costs a second or two of a busy machine). Call it at
 * the file's top level; the returned function gives the browser inside tests and hooks.
 */
export function browserForThisFile(): () => Browser {
  let browser: Browser | undefined;
  before(async () => {
    if (skipWithoutChromium === false) browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });
  return () => {
    if (browser === undefined) throw new Error('no browser: call browserForThisFile() at the top level of the test file');
    return browser;
  };
}

/**
 * The texts of `cells` once `settled` accepts them, or the last ones read after `timeoutMs`: a
 * page re-renders while its queries settle, and a read in between can find a row without cells.
 */
export async function settledTexts(cells: Locator, settled: (texts: string[]) => boolean, timeoutMs = 10_000): Promise<string[]> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const texts = await cells.allTextContents();
    if (settled(texts) || Date.now() > giveUpAt) return texts;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Screenshots for people to look at; git-ignored. */
export const SHOTS = path.join(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical findings on the page as it is now, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}

/**
 * A full-page screenshot waits for the page to be painted, which on two cores busy with other test
 * files has taken over Playwright's default 30 s; the picture is for people, so it may take longer.
 */
const SCREENSHOT_TIMEOUT_MS = 120_000;

/**
 * Screenshots the page at desktop and phone widths and in the dark scheme, asserting that axe
 * finds nothing serious in any of them; leaves the page at 1280 px, light.
 */
export async function lookAt(page: Page, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 900],
    [390, 844],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(150); // a chart follows its box's new width on the next frame
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true, timeout: SCREENSHOT_TIMEOUT_MS });
    assert.deepEqual(await seriousViolations(page), [], `${name} at ${width} px`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: path.join(SHOTS, `${name}-1280-dark.png`), fullPage: true, timeout: SCREENSHOT_TIMEOUT_MS });
  assert.deepEqual(await seriousViolations(page), [], `${name} at 1280 px, dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}
