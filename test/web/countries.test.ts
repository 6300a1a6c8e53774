import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isCountryCode } from '../../src/modules/advertiser/campaigns/geo.ts';
import { CURRENT_COUNTRY_CODES, currentCountries, findCountries } from '../../web/src/components/countries.ts';

/** The country picker's list (web/src/components/countries.ts) against the API's geo check. */
describe('the countries the web app offers', () => {
  it('are the 249 current ISO 3166-1 codes, each one the API accepts', () => {
    assert.equal(new Set(CURRENT_COUNTRY_CODES).size, 249);
    assert.deepEqual(
      CURRENT_COUNTRY_CODES.filter((code) => !isCountryCode(code)),
      [],
    );
  });

  it('leave out withdrawn codes, which the API still accepts for targeting stored with them', () => {
    for (const code of ['DD', 'SU', 'CS', 'YU', 'ZR', 'BU', 'AN', 'TP']) {
      assert.equal(CURRENT_COUNTRY_CODES.includes(code), false, code);
      assert.equal(isCountryCode(code), true, code);
    }
  });

  it('are found by code, name or alias in English and Russian, whatever the reader’s language', () => {
    for (const locale of ['en', 'ru']) {
      const all = currentCountries(locale);
      const first = (typed: string) => findCountries(all, typed)[0]?.code;
      for (const [typed, code] of [
        ['USA', 'US'],
        ['us', 'US'],
        ['America', 'US'],
        ['США', 'US'],
        ['UK', 'GB'],
        ['Britain', 'GB'],
        ['Великобритания', 'GB'],
        ['Russia', 'RU'],
        ['Россия', 'RU'],
        ['Germany', 'DE'],
        ['Германия', 'DE'],
        ['Trinidad and Tobago', 'TT'],
        ['Saint Lucia', 'LC'],
        ['Cote d’Ivoire', 'CI'],
      ] as const) {
        assert.equal(first(typed), code, `${typed} in ${locale}`);
      }
      assert.deepEqual(findCountries(all, 'Yugoslavia'), [], locale);
    }
  });
});
