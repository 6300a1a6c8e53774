import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDateTime } from '../../../../src/modules/advertiser/campaigns/campaign-control.ts';
import {
  agentTargets,
  BROWSER_FAMILIES,
  browserFamily,
  matchesTargets,
  OS_FAMILIES,
  osFamily,
  readTarget,
} from '../../../../src/modules/serving/selection/agent-targets.ts';
import { dayFraction, lifetimeDailyTarget, pacedAllowance } from '../../../../src/modules/serving/selection/pacing.ts';

describe('OS and browser targets', () => {
  it('names families as ua-parser-js reports them', () => {
    assert.equal(osFamily('Mac OS'), 'macos');
    assert.equal(osFamily('macOS'), 'macos');
    assert.equal(osFamily('Ubuntu'), 'linux');
    assert.equal(osFamily('Symbian'), 'other');
    assert.equal(osFamily(undefined), '');
    assert.equal(browserFamily('Mobile Safari'), 'safari');
    assert.equal(browserFamily('Mobile Chrome'), 'chrome');
    assert.equal(browserFamily('Samsung Internet'), 'samsung');
    assert.equal(browserFamily('Lynx'), 'other');
  });

  it('reads targets and refuses unknown families and versions', () => {
    assert.equal(readTarget(' Android : 14 ', OS_FAMILIES), 'android:14');
    assert.equal(readTarget('chrome', BROWSER_FAMILIES), 'chrome');
    assert.equal(typeof readTarget('symbian', OS_FAMILIES), 'object');
    assert.equal(typeof readTarget('chrome:0', BROWSER_FAMILIES), 'object');
    assert.equal(typeof readTarget('chrome:x', BROWSER_FAMILIES), 'object');
  });

  const targets = agentTargets(['ios', 'android:14']);
  const cases: [family: string, major: number, matches: boolean][] = [
    ['ios', 0, true],
    ['ios', 17, true],
    ['android', 14, true],
    ['android', 13, false],
    ['android', 0, false],
    ['windows', 10, false],
    ['', 0, false],
  ];
  for (const [family, major, matches] of cases) {
    it(`ios, android:14 ${matches ? 'take' : 'refuse'} ${family || 'unknown'} ${major}`, () => {
      assert.ok(targets);
      assert.equal(matchesTargets(targets, family, major), matches);
    });
  }
  it('an empty list targets nothing in particular', () => assert.equal(agentTargets([]), undefined));
});

describe('even pacing', () => {
  const noon = Date.UTC(2026, 2, 10, 12, 0);
  it('reads the share of the day gone on the platform’s clock', () => {
    assert.equal(dayFraction(noon, 'UTC'), 0.5);
    assert.equal(dayFraction(noon, 'Europe/Berlin'), 13 / 24);
    assert.equal(dayFraction(Date.UTC(2026, 2, 10, 0, 0), 'UTC'), 0);
  });
  const allowances: [target: number, fraction: number, allowance: number][] = [
    [24_000_000, 0, 1_000_000],
    [24_000_000, 0.5, 13_000_000],
    [24_000_000, 23 / 24, 24_000_000],
    [24_000_000, 0.99, 24_000_000],
    [0, 0.5, 0],
  ];
  for (const [target, fraction, allowance] of allowances) {
    it(`a target of ${target} allows ${allowance} at ${fraction.toFixed(3)} of the day`, () =>
      assert.equal(pacedAllowance(target, fraction), allowance));
  }
  it('spreads what is left of a lifetime budget over the days left', () => {
    assert.equal(lifetimeDailyTarget(48_000_000, noon, noon + 1.5 * 86_400_000), 24_000_000);
    assert.equal(lifetimeDailyTarget(10_000_000, noon, noon + 3_600_000), 10_000_000);
    assert.equal(
      lifetimeDailyTarget(10_000_000, noon, noon - 3_600_000),
      10_000_000,
      'past the end: all of it (the flight stops it)',
    );
    assert.equal(lifetimeDailyTarget(0, noon, noon + 86_400_000), 0);
  });
});

describe('flight date-times', () => {
  const cases: [value: string, timeZone: string, iso: string | undefined][] = [
    ['2026-03-10T14:00', 'Europe/Berlin', '2026-03-10T13:00:00.000Z'],
    ['2026-07-10T14:00', 'Europe/Berlin', '2026-07-10T12:00:00.000Z'],
    ['2026-03-10', 'America/New_York', '2026-03-10T04:00:00.000Z'],
    ['2026-03-10T14:00:30Z', 'Europe/Berlin', '2026-03-10T14:00:30.000Z'],
    ['2026-03-10T14:00+03:00', 'UTC', '2026-03-10T11:00:00.000Z'],
    ['2026-02-30T10:00', 'UTC', undefined],
    ['2026-03-10T25:00', 'UTC', undefined],
    ['2026-03-10Z', 'UTC', undefined],
    ['tomorrow', 'UTC', undefined],
  ];
  for (const [value, timeZone, iso] of cases) {
    it(`${value} in ${timeZone} → ${iso ?? 'refused'}`, () => assert.equal(readDateTime(value, timeZone)?.toISOString(), iso));
  }
});
