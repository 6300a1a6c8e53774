/**
 * How a period is read from the summaries (docs/adr/0020): as a signed sum of runs of summary rows
 * of the span hierarchy all ⊃ year ⊃ month ⊃ dekad ⊃ day. A partial node is either the sum of
 * its children inside the period, or the node minus its children outside the period, whichever
 * reads fewer rows; rows after "today" do not exist yet, so a period ending today reads the
 * enclosing year, month or dekad row once. The answer is exact whichever plan is chosen: only the
 * number of rows read depends on the cost estimate.
 */

/** Spans of stats_rollups rows (migrations 0410 and 0510); `day` is the span's first day. */
export const SPANS = { hour: 0, day: 1, month: 2, dekad: 3, year: 4, all: 5 } as const;

/** The first day of the `all` span: one row per key over its whole history. */
export const ALL_START = '0001-01-01';
const ALL_END = '9999-12-31';

/** Summary rows of one span whose first days are `from`..`to`, added (1) or subtracted (-1). */
export interface SpanTerm {
  span: number;
  from: string;
  to: string;
  sign: 1 | -1;
}

interface Plan {
  /** Runs with their first days as day numbers, turned into dates once the plan is chosen. */
  terms: { span: number; from: number; to: number; sign: 1 | -1 }[];
  /** Estimated summary rows read per key. */
  cost: number;
}

const DAY_MS = 86_400_000;
const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function isoDay(day: number): string {
  const date = new Date(day * DAY_MS);
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/** Year, month (0–11) and date of a day number, by the civil-from-days algorithm (no Date objects). */
const ymd = (day: number) => {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const date = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 2 : mp - 10;
  return { year: yoe + era * 400 + (month <= 1 ? 1 : 0), month, date };
};
/** The day number of a date (month 0–11, may overflow into the next year), by days-from-civil. */
const dayOfDate = (year: number, month: number, date: number) => {
  const y = year + Math.floor(month / 12) - (((month % 12) + 12) % 12 <= 1 ? 1 : 0);
  const m = ((month % 12) + 12) % 12;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 1 ? m - 2 : m + 10) + 2) / 5) + date - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
};

const dayNumber = (iso: string) => dayOfDate(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10)));

/** The hierarchy, coarsest first: each level's span, the first day of its node holding a day, and the next node's. */
const LEVELS: {
  span: number;
  start: (day: number) => number;
  next: (start: number) => number;
  /** Consecutive numbers for consecutive nodes, to count a run's nodes. */
  ordinal: (start: number) => number;
}[] = [
  { span: SPANS.all, start: () => dayNumber(ALL_START), next: () => dayNumber(ALL_END) + 1, ordinal: () => 0 },
  {
    span: SPANS.year,
    ordinal: (start) => ymd(start).year,
    start: (day) => dayOfDate(ymd(day).year, 0, 1),
    next: (start) => dayOfDate(ymd(start).year + 1, 0, 1),
  },
  {
    span: SPANS.month,
    ordinal: (start) => ymd(start).year * 12 + ymd(start).month,
    start: (day) => {
      const { year, month } = ymd(day);
      return dayOfDate(year, month, 1);
    },
    next: (start) => {
      const { year, month } = ymd(start);
      return dayOfDate(year, month + 1, 1);
    },
  },
  {
    // Days 1–10, 11–20 and 21 to the month's end: a partial month edge is at most 3 dekad rows
    // and 5 day rows either way, rather than up to 15 day rows.
    span: SPANS.dekad,
    ordinal: (start) => {
      const { year, month, date } = ymd(start);
      return (year * 12 + month) * 3 + Math.floor(date / 10);
    },
    start: (day) => {
      const { year, month, date } = ymd(day);
      return dayOfDate(year, month, date <= 10 ? 1 : date <= 20 ? 11 : 21);
    },
    next: (start) => {
      const { year, month, date } = ymd(start);
      return date === 21 ? dayOfDate(year, month + 1, 1) : start + 10;
    },
  },
  { span: SPANS.day, start: (day) => day, next: (start) => start + 1, ordinal: (start) => start },
];

/** Rows before this day are assumed rare when costing a plan (it never changes the answer). */
const HISTORY_FLOOR = dayNumber('1970-01-01');

const EMPTY: Plan = { terms: [], cost: 0 };
const joined = (...plans: Plan[]): Plan => ({
  terms: plans.flatMap((plan) => plan.terms),
  cost: plans.reduce((sum, plan) => sum + plan.cost, 0),
});
const negated = (plan: Plan): Plan => ({
  terms: plan.terms.map((term) => ({ ...term, sign: term.sign === 1 ? -1 : 1 })),
  cost: plan.cost,
});

class Planner {
  private readonly today: number;
  /** Plans already made, by level and days: the direct and complement plans share partial nodes. */
  private readonly made = new Map<string, Plan>();

  constructor(today: number) {
    this.today = today;
  }

  /** The nodes of a level starting from..to (first days) as one term, costed by the rows that can exist. */
  run(level: number, from: number, to: number): Plan {
    const { span, start, ordinal } = LEVELS[level] as (typeof LEVELS)[number];
    const first = Math.max(from, start(HISTORY_FLOOR));
    const last = start(Math.min(to, this.today));
    const cost = last < first ? 0 : ordinal(last) - ordinal(first) + 1;
    return { terms: [{ span, from, to, sign: 1 }], cost };
  }

  /** Exactly the days a..b of the node of `level` starting at `start`. */
  best(level: number, start: number, a: number, b: number): Plan {
    if (a > b) return EMPTY;
    const key = `${level}|${a}|${b}`;
    const made = this.made.get(key);
    if (made !== undefined) return made;
    const plan = this.choose(level, start, a, b);
    this.made.set(key, plan);
    return plan;
  }

  private choose(level: number, start: number, a: number, b: number): Plan {
    const end = (LEVELS[level] as (typeof LEVELS)[number]).next(start) - 1;
    if (a === start && b === end) return this.run(level, start, start);
    const direct = this.inner(level, a, b);
    const complement = joined(
      this.run(level, start, start),
      negated(this.inner(level, start, a - 1)),
      negated(this.inner(level, b + 1, end)),
    );
    return complement.cost < direct.cost ? complement : direct;
  }

  /** The days a..b inside one node of `level`, from the nodes of the level below. */
  inner(level: number, a: number, b: number): Plan {
    if (a > b) return EMPTY;
    const child = level + 1;
    const { start, next } = LEVELS[child] as (typeof LEVELS)[number];
    const first = start(a);
    const last = start(b);
    if (first === last) return this.best(child, first, a, b);
    const parts: Plan[] = [];
    let runFrom = first;
    let runTo = last;
    if (a !== first) {
      parts.push(this.best(child, first, a, next(first) - 1));
      runFrom = next(first);
    }
    if (b !== next(last) - 1) {
      parts.push(this.best(child, last, last, b));
      runTo = start(last - 1);
    }
    if (runFrom <= runTo) parts.push(this.run(child, runFrom, runTo));
    return joined(...parts);
  }
}

/**
 * The signed runs of summary rows whose sum is exactly the days from..to (open ends unbounded),
 * reading as few rows as it can tell. `today` is where rows stop existing (a cost hint only).
 */
export function planPeriod(from: string | undefined, to: string | undefined, today: string): SpanTerm[] {
  const a = dayNumber(from ?? ALL_START);
  const b = dayNumber(to ?? ALL_END);
  if (a > b) return [];
  const { terms } = new Planner(dayNumber(today)).best(0, dayNumber(ALL_START), a, b);
  return terms.map((term) => ({ ...term, from: isoDay(term.from), to: isoDay(term.to) }));
}

/** The first days of the dekad, month and year holding a day (YYYY-MM-DD), for the write path. */
export function enclosingSpans(day: string): { dekad: string; month: string; year: string } {
  const date = Number(day.slice(8, 10));
  return {
    dekad: `${day.slice(0, 8)}${date <= 10 ? '01' : date <= 20 ? '11' : '21'}`,
    month: `${day.slice(0, 8)}01`,
    year: `${day.slice(0, 5)}01-01`,
  };
}
