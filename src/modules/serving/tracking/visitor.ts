import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { isbot } from 'isbot';
import { type CountryResponse, Reader } from 'mmdb-lib';
import { UAParser } from 'ua-parser-js';
import { truncatedAddress } from '../../../shared/stored-address.ts';
import { DEVICES, type DeviceId } from '../../statistics/index.ts';
import { type AgentTraits, browserFamily, majorVersion, osFamily, UNKNOWN_AGENT } from '../selection/agent-targets.ts';

/** What the serving engine knows about a visitor: device, operating system and browser, whether it is a robot. */
export interface VisitorTraits {
  device: DeviceId;
  /** A robot of either kind: a declared one or an automated browser. */
  bot: boolean;
  /** Which kind of robot the User-Agent says (invalid-traffic.ts): null for a browser. */
  robot: 'bot' | 'automation' | null;
  agent: AgentTraits;
}

/**
 * Headless and automated browsers that do not call themselves robots in a way the robot list
 * catches first: they get their own reason (`automation`), as the industry counts them apart.
 */
const AUTOMATION_PATTERN =
  /headlesschrome|phantomjs|selenium|webdriver|puppeteer|playwright|slimerjs|electron\/[\d.]+ .*headless/i;

const traitsCache = new Map<string, VisitorTraits>();
const TRAITS_CACHE_LIMIT = 2000;

/**
 * Device type, operating system, browser and robot kind from a User-Agent, in one parse; results
 * are cached (agents repeat a lot). Declared robots are recognised by `isbot`, a maintained list
 * pinned in package.json, rather than by an expression of our own. A request without a
 * User-Agent is not a robot here: server-side integrations send none (the click link, which only
 * browsers follow, decides otherwise: invalid-traffic.ts).
 */
export function visitorTraits(userAgent: string | undefined): VisitorTraits {
  const agent = userAgent ?? '';
  let traits = traitsCache.get(agent);
  if (traits === undefined) {
    const parsed = agent === '' ? undefined : new UAParser(agent).getResult();
    const type = parsed?.device.type;
    const device: DeviceId = type === 'mobile' ? DEVICES.mobile : type === 'tablet' ? DEVICES.tablet : DEVICES.desktop;
    const system =
      parsed === undefined
        ? UNKNOWN_AGENT
        : {
            os: osFamily(parsed.os.name),
            osMajor: majorVersion(parsed.os.version),
            browser: browserFamily(parsed.browser.name),
            browserMajor: majorVersion(parsed.browser.major),
          };
    const robot = agent === '' ? null : AUTOMATION_PATTERN.test(agent) ? 'automation' : isbot(agent) ? 'bot' : null;
    traits = { device, bot: robot !== null, robot, agent: system };
    if (traitsCache.size >= TRAITS_CACHE_LIMIT) traitsCache.clear();
    traitsCache.set(agent, traits);
  }
  return traits;
}

/**
 * A record of the country database: ip-location-db's `country_code`, or the `country.iso_code` of
 * MaxMind's and DB-IP's country databases (the Reader's own type).
 */
type CountryRecord = CountryResponse & { country_code?: string };

/**
 * The country database shipped in an npm package: ip-location-db's geo-whois-asn-country (GeoFeed,
 * then the five registries' WHOIS, then their ASN data; CC BY 4.0 by the NRO), IPv4 and IPv6, in
 * the MaxMind DB format. It is read as one 8 MB buffer and searched in place (geoip-lite, before
 * it, expanded its database into about 110 MB of memory).
 */
const COUNTRY_DATABASE = '@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb';
let countryReader: Reader<CountryRecord> | undefined;

/**
 * ISO country of an IP address from the bundled (offline) database, or '' when unknown.
 * Loopback and private addresses have no country. The database is loaded on first use: many
 * test servers never see a public address.
 */
export function countryOf(ip: string): string {
  let country = countryCache.get(ip);
  if (country === undefined) {
    country = lookUpCountry(ip);
    if (countryCache.size >= COUNTRY_CACHE_LIMIT) countryCache.clear();
    countryCache.set(ip, country);
  }
  return country;
}

/** Visitors come back (a page loads several blocks, then clicks): their country is cached. */
const countryCache = new Map<string, string>();
const COUNTRY_CACHE_LIMIT = 10_000;

function lookUpCountry(ip: string): string {
  const address = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (isIP(address) === 0 || isPrivateAddress(address)) return '';
  if (countryReader === undefined) {
    const file = createRequire(import.meta.url).resolve(COUNTRY_DATABASE);
    countryReader = new Reader<CountryRecord>(readFileSync(file));
  }
  const record = countryReader.get(address);
  return record?.country_code ?? record?.country?.iso_code ?? '';
}

export function isPrivateAddress(address: string): boolean {
  if (address === '::1' || address === '::') return true;
  if (address.includes(':')) return /^(fc|fd|fe80)/i.test(address);
  const [a = 0, b = 0] = address.split('.').map(Number);
  return (
    a === 10 || a === 127 || a === 0 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
  );
}

/**
 * A click's address as it is stored (PostgreSQL `inet`): truncated to its network, IPv4 /24 and
 * IPv6 /48 (docs/privacy.md); anything that is not an IP address (a forwarded header behind a
 * misconfigured proxy) is null rather than a value the column would refuse.
 */
export function clickAddress(ip: string | undefined): string | null {
  return truncatedAddress(ip);
}
