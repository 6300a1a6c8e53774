import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkSchedule, checkTimeZone } from '../../../../src/modules/advertiser/campaigns/schedule-input.ts';
import { campaignExclusion, type ImpressionFilters } from '../../../../src/modules/serving/selection/eligibility.ts';
import { hourOfWeek, isTimeZone, servesAt, weekSchedule } from '../../../../src/modules/serving/selection/schedule.ts';

const at = (iso: string) => Date.parse(iso);
const hours = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);

describe('schedule: hour of the week', () => {
  const cases: [string, string, number][] = [
    // 2026-03-09 is a Monday.
    ['2026-03-09T00:00:00Z', 'UTC', 0],
    ['2026-03-09T00:59:59Z', 'UTC', 0],
    ['2026-03-09T01:00:00Z', 'UTC', 1],
    ['2026-03-15T23:30:00Z', 'UTC', 167],
    ['2026-03-10T12:00:00Z', 'UTC', 36],
    // Monday 00:30 UTC is still Sunday in New York: 19:30 (EST, UTC-5) a week before its DST, 20:30 (EDT) after.
    ['2026-03-02T00:30:00Z', 'America/New_York', 6 * 24 + 19],
    ['2026-03-09T00:30:00Z', 'America/New_York', 6 * 24 + 20],
    // Half-hour and quarter-hour zones.
    ['2026-03-09T00:00:00Z', 'Asia/Kolkata', 5],
    ['2026-03-08T18:14:00Z', 'Asia/Kathmandu', 167],
    ['2026-03-08T18:15:00Z', 'Asia/Kathmandu', 0],
    // New York springs forward on Sunday 2026-03-08: 01:59 EST is followed by 03:00 EDT.
    ['2026-03-08T06:59:00Z', 'America/New_York', 6 * 24 + 1],
    ['2026-03-08T07:00:00Z', 'America/New_York', 6 * 24 + 3],
    // Berlin falls back on Sunday 2026-10-25: 02:00–03:00 local happens twice.
    ['2026-10-25T00:30:00Z', 'Europe/Berlin', 6 * 24 + 2],
    ['2026-10-25T01:30:00Z', 'Europe/Berlin', 6 * 24 + 2],
    ['2026-10-25T02:30:00Z', 'Europe/Berlin', 6 * 24 + 3],
    // Across the date line: Monday 00:00 UTC is Monday 13:00 in Auckland (NZDT, UTC+13).
    ['2026-03-09T00:00:00Z', 'Pacific/Auckland', 13],
  ];
  for (const [iso, zone, expected] of cases) {
    it(`${iso} in ${zone} is hour ${expected}`, () => {
      assert.equal(hourOfWeek(at(iso), zone), expected);
    });
  }
});

describe('schedule: serves at', () => {
  const workdays = [0, 1, 2, 3, 4].flatMap((day) => hours(day * 24 + 9, day * 24 + 17));
  const cases: [string, string, boolean][] = [
    ['2026-03-10T09:00:00Z', 'UTC', true],
    ['2026-03-10T17:59:59Z', 'UTC', true],
    ['2026-03-10T18:00:00Z', 'UTC', false],
    ['2026-03-10T08:59:59Z', 'UTC', false],
    ['2026-03-14T12:00:00Z', 'UTC', false],
    // 08:00 UTC is 09:00 in Berlin (CET): serving there, not in UTC.
    ['2026-03-10T08:00:00Z', 'Europe/Berlin', true],
    ['2026-03-10T17:00:00Z', 'Europe/Berlin', false],
    // In summer Berlin is UTC+2: 07:00 UTC is 09:00 local.
    ['2026-07-07T07:00:00Z', 'Europe/Berlin', true],
    ['2026-07-07T06:59:00Z', 'Europe/Berlin', false],
  ];
  for (const [iso, zone, expected] of cases) {
    it(`9–18 on workdays in ${zone}: ${iso} → ${expected}`, () => {
      assert.equal(servesAt(weekSchedule(workdays, zone), at(iso)), expected);
    });
  }

  it('answers each zone by its own clock within one quarter hour (cached per zone)', () => {
    const now = at('2026-03-10T08:30:00Z');
    assert.equal(servesAt(weekSchedule(workdays, 'Europe/Berlin'), now), true);
    assert.equal(servesAt(weekSchedule(workdays, 'UTC'), now), false);
    assert.equal(servesAt(weekSchedule(workdays, 'Europe/Berlin'), now + 60_000), true);
  });

  it('the filter names the schedule, and lets a campaign without one through', () => {
    const filters: ImpressionFilters = {
      nowMs: at('2026-03-14T12:00:00Z'),
      page: undefined,
      campaignsUnique: false,
      viewsToday: undefined,
    };
    assert.equal(campaignExclusion({ id: 1, schedule: weekSchedule(workdays, 'UTC') }, filters), 'schedule');
    assert.equal(campaignExclusion({ id: 1 }, filters), undefined);
  });
});

describe('schedule: input', () => {
  const cases: [unknown, number[] | null | undefined | string][] = [
    [undefined, undefined],
    [null, null],
    ['', null],
    [
      [3, 1, 2, 1],
      [1, 2, 3],
    ],
    ['8-10, 32-33,167', [8, 9, 10, 32, 33, 167]],
    [
      ['0-1', 5],
      [0, 1, 5],
    ],
    [[168], 'schedule'],
    [[-1], 'schedule'],
    [[1.5], 'schedule'],
    ['10-8', 'schedule'],
    ['9-170', 'schedule'],
    ['mon', 'schedule'],
    [[], 'schedule'],
    [[true], 'schedule'],
  ];
  for (const [value, expected] of cases) {
    it(`${JSON.stringify(value)} → ${JSON.stringify(expected)}`, () => {
      const checked = checkSchedule(value);
      if (typeof expected === 'string') assert.equal((checked as { field: string }).field, expected);
      else assert.deepEqual(checked, expected);
    });
  }

  it('time zones: IANA names, null clears, unknown names are refused', () => {
    assert.equal(isTimeZone('Europe/Berlin'), true);
    assert.equal(checkTimeZone('America/New_York'), 'America/New_York');
    assert.equal(checkTimeZone(null), null);
    assert.equal(checkTimeZone(''), null);
    assert.equal(checkTimeZone(undefined), undefined);
    assert.deepEqual(checkTimeZone('Mars/Olympus'), {
      field: 'timeZone',
      message: 'Must be an IANA time zone name such as Europe/Berlin.',
    });
    assert.equal((checkTimeZone(5) as { field: string }).field, 'timeZone');
  });
});
