/**
 * Operating-system and browser targeting: the families a campaign may target, read from the same
 * User-Agent parsing as the device type (ua-parser-js, tracking/visitor.ts), and how a target
 * (`android`, or `android:14` for one major version) matches a visitor. Pure functions.
 */

/** Device types a campaign may target, as the API names them (the device ids 1, 2, 3 in this order). */
export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** Operating-system families; any other system is `other`. */
export const OS_FAMILIES = ['windows', 'macos', 'ios', 'android', 'linux', 'chromeos', 'other'] as const;
/** Browser families (a mobile build counts as its family: Mobile Safari is `safari`); any other is `other`. */
export const BROWSER_FAMILIES = ['chrome', 'safari', 'firefox', 'edge', 'opera', 'samsung', 'yandex', 'other'] as const;

export type OsFamily = (typeof OS_FAMILIES)[number];
export type BrowserFamily = (typeof BROWSER_FAMILIES)[number];

/** A visitor's system and browser: families and major versions (0: unknown); '' without a User-Agent. */
export interface AgentTraits {
  os: OsFamily | '';
  osMajor: number;
  browser: BrowserFamily | '';
  browserMajor: number;
}

export const UNKNOWN_AGENT: AgentTraits = { os: '', osMajor: 0, browser: '', browserMajor: 0 };

const OS_NAMES: Record<string, OsFamily> = {
  windows: 'windows',
  macos: 'macos',
  'mac os': 'macos',
  ios: 'ios',
  ipados: 'ios',
  android: 'android',
  linux: 'linux',
  ubuntu: 'linux',
  debian: 'linux',
  fedora: 'linux',
  'chrome os': 'chromeos',
  'chromium os': 'chromeos',
};

const BROWSER_NAMES: Record<string, BrowserFamily> = {
  chrome: 'chrome',
  'chrome headless': 'chrome',
  'chrome webview': 'chrome',
  chromium: 'chrome',
  safari: 'safari',
  firefox: 'firefox',
  edge: 'edge',
  opera: 'opera',
  'opera touch': 'opera',
  'samsung internet': 'samsung',
  yandex: 'yandex',
};

/** The family of ua-parser-js's operating-system name (`Mac OS`, `iOS`, …). */
export function osFamily(name: string | undefined): OsFamily | '' {
  if (name === undefined || name === '') return '';
  return OS_NAMES[name.toLowerCase()] ?? 'other';
}

/** The family of ua-parser-js's browser name; `Mobile Chrome` is `chrome`. */
export function browserFamily(name: string | undefined): BrowserFamily | '' {
  if (name === undefined || name === '') return '';
  const lower = name.toLowerCase().replace(/^mobile /, '');
  return BROWSER_NAMES[lower] ?? 'other';
}

/** The major version of a version string (`17.4` → 17); 0 when there is none. */
export function majorVersion(version: string | undefined): number {
  const major = Number.parseInt(version ?? '', 10);
  return Number.isFinite(major) && major > 0 ? major : 0;
}

/**
 * A campaign's targets of one kind: the families it takes in any version, and the
 * `family:major` pairs it takes in one version. Absent on a campaign: it takes every visitor.
 */
export interface AgentTargets {
  families: ReadonlySet<string>;
  versions: ReadonlySet<string>;
}

/** The targets of a list of `family` and `family:major` strings (validated); undefined when empty. */
export function agentTargets(targets: readonly string[]): AgentTargets | undefined {
  if (targets.length === 0) return undefined;
  const families = new Set<string>();
  const versions = new Set<string>();
  for (const target of targets) (target.includes(':') ? versions : families).add(target);
  return { families, versions };
}

/** Whether a visitor's family and major version are among the targets; an unknown family never is. */
export function matchesTargets(targets: AgentTargets, family: string, major: number): boolean {
  if (family === '') return false;
  return targets.families.has(family) || (major > 0 && targets.versions.has(`${family}:${major}`));
}

/**
 * A target as sent, normalised (`Android:14` → `android:14`), or why it is not one: a family of
 * `families`, optionally `:` and a major version (a positive integer).
 */
export function readTarget(value: string, families: readonly string[]): string | { problem: string } {
  const match = /^\s*([a-z]+)\s*(?::\s*(\d{1,4})\s*)?$/i.exec(value);
  const family = match?.[1]?.toLowerCase() ?? '';
  if (match === null || !families.includes(family)) {
    return { problem: `${value} is not one of ${families.join(', ')}, optionally with :major (android:14).` };
  }
  const major = match[2] === undefined ? 0 : Number(match[2]);
  if (match[2] !== undefined && major < 1) return { problem: `${value}: the major version must be 1 or more.` };
  return major === 0 ? family : `${family}:${major}`;
}
