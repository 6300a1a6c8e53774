/**
 * The 249 current ISO 3166-1 alpha-2 codes, which the country picker offers. Written out rather
 * than read from the browser's region names, which also name withdrawn codes (DD, SU, CS, YU, ZR,
 * BU and others) under a current country's name. The API still accepts withdrawn codes, so that
 * targeting stored with one reads back; the picker shows such a code when it is chosen but never
 * offers it.
 */
export const CURRENT_COUNTRY_CODES: readonly string[] = `
  AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS
  BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE
  EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM
  HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC
  LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA
  NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
  SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO
  TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`
  .trim()
  .split(/\s+/);

/**
 * Names people search by that are neither the code nor the country's name in English or Russian:
 * abbreviations, older and informal names, parts of a country. Either language works in either.
 */
const ALIASES: Record<string, readonly string[]> = {
  AE: ['UAE', 'Emirates', 'ОАЭ', 'Эмираты'],
  BA: ['Bosnia', 'Herzegovina', 'Босния'],
  BY: ['Belorussia', 'Byelorussia', 'Белоруссия'],
  CD: ['DR Congo', 'DRC', 'Democratic Republic of the Congo', 'Zaire', 'ДР Конго', 'ДРК', 'Заир'],
  CG: ['Republic of the Congo', 'Республика Конго'],
  CI: ['Ivory Coast', "Cote d'Ivoire", 'Берег Слоновой Кости'],
  CN: ['PRC', 'КНР'],
  CV: ['Cabo Verde', 'Кабо-Верде'],
  CZ: ['Czech Republic', 'Чешская Республика'],
  DE: ['Deutschland', 'ФРГ'],
  FM: ['Federated States of Micronesia'],
  GB: [
    'UK',
    'Britain',
    'Great Britain',
    'England',
    'Scotland',
    'Wales',
    'Northern Ireland',
    'Британия',
    'Англия',
    'Шотландия',
    'Уэльс',
    'Северная Ирландия',
    'Соединённое Королевство',
  ],
  HK: ['Гонконг'],
  IE: ['Eire'],
  IR: ['Persia', 'Персия'],
  KG: ['Kirghizia', 'Киргизия'],
  KP: ['DPRK', 'КНДР', 'Северная Корея'],
  KR: ['Korea', 'Republic of Korea', 'Корея', 'Южная Корея'],
  LA: ['Lao'],
  MD: ['Moldavia', 'Молдавия'],
  MK: ['Macedonia', 'Македония'],
  MM: ['Burma', 'Бирма'],
  MO: ['Macau', 'Макао'],
  NL: ['Holland', 'Голландия'],
  PS: ['Palestine', 'Палестина'],
  RU: ['Russian Federation', 'Российская Федерация', 'РФ'],
  SA: ['KSA'],
  SZ: ['Swaziland', 'Свазиленд'],
  TL: ['East Timor', 'Восточный Тимор'],
  TR: ['Turkey', 'Турция'],
  US: ['USA', 'America', 'United States of America', 'США', 'Америка', 'Соединённые Штаты Америки'],
  VA: ['Holy See', 'Vatican', 'Ватикан', 'Святой Престол'],
  VN: ['Viet Nam'],
};

/** Text as the search compares it: no case, no accents (ё is е), "&" is "and", "Saint" is "St", no punctuation. */
export function searchForm(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[.,'’()-]/g, ' ')
    .replace(/\bsaint\b/g, 'st')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface Country {
  code: string;
  /** The name in the reader's language. */
  name: string;
  /** Its names in English and Russian and its aliases, in search form. */
  words: string[];
}

/** Every current country, named in `locale`, by name. */
export function currentCountries(locale: string): Country[] {
  const names = new Intl.DisplayNames([locale, 'en'], { type: 'region', fallback: 'code' });
  const english = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
  const russian = new Intl.DisplayNames(['ru'], { type: 'region', fallback: 'code' });
  return CURRENT_COUNTRY_CODES.map((code) => ({
    code,
    name: names.of(code) ?? code,
    words: [english.of(code) ?? code, russian.of(code) ?? code, ...(ALIASES[code] ?? [])].map(searchForm),
  })).sort((a, b) => a.name.localeCompare(b.name, locale));
}

/**
 * The name of any code the API accepts. A withdrawn one (a campaign may hold one) carries its code,
 * since its name is often a current country's: SU is "Russia (SU)", beside RU's "Russia".
 */
export function countryName(code: string, locale: string): string {
  const name = new Intl.DisplayNames([locale, 'en'], { type: 'region', fallback: 'code' }).of(code) ?? code;
  return CURRENT_COUNTRY_CODES.includes(code) || name === code ? name : `${name} (${code})`;
}

/**
 * The countries that match what a person typed, best first: the code or a whole name or alias
 * ("US", "USA", "UK", "Россия"), then names that begin with it or have a word that does, then
 * names that merely contain it.
 */
export function findCountries(countries: readonly Country[], typed: string): Country[] {
  const wanted = searchForm(typed);
  if (wanted === '') return [];
  const rank = (country: Country): number => {
    if (country.code.toLowerCase() === wanted || country.words.includes(wanted)) return 0;
    if (country.words.some((word) => word.startsWith(wanted) || word.includes(` ${wanted}`))) return 1;
    if (country.words.some((word) => word.includes(wanted))) return 2;
    return 3;
  };
  return countries
    .map((country) => ({ country, rank: rank(country) }))
    .filter((match) => match.rank < 3)
    .sort((a, b) => a.rank - b.rank)
    .map((match) => match.country);
}
