import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import i18next from 'i18next';
import { parseAmount, parseWholeNumber, readMoney, readWholeNumber } from '../../web/src/format.ts';
import english from '../../web/src/i18n/locales/en/common.json' with { type: 'json' };
import russian from '../../web/src/i18n/locales/ru/common.json' with { type: 'json' };

/** What a money field of the web app makes of typed text, by the reader's language (docs/adr/0038). */
describe('money typed in a form (parseAmount)', () => {
  before(async () => {
    await i18next.init({
      lng: 'en',
      keySeparator: false,
      resources: { en: { common: english }, ru: { common: russian } },
      defaultNS: 'common',
    });
  });

  const read = (text: string, language: string) => {
    const parsed = parseAmount(text, language);
    return parsed.ok ? parsed.amount : null;
  };

  it('reads the separators of the language: a thousand is "1,000" in English and "1.000" in German', () => {
    assert.equal(read('1,000', 'en-GB'), '1000');
    assert.equal(read('1,000.5', 'en-US'), '1000.5');
    assert.equal(read('1.000', 'de-DE'), '1000');
    assert.equal(read('1.000,25', 'de-DE'), '1000.25');
    assert.equal(read('0,0075', 'de-DE'), '0.0075');
    // French groups with a (narrow no-break) space: any space typed there counts.
    assert.equal(read('1 000,5', 'fr-FR'), '1000.5');
    assert.equal(read('1\u202f000,5', 'fr-FR'), '1000.5');
    assert.equal(read(' 0012.50 ', 'en-GB'), '12.50');
  });

  it('refuses what the language would not write, rather than guess', () => {
    for (const [text, language] of [
      ['1,5', 'en-GB'],
      ['1.5', 'de-DE'],
      ['1,000,00', 'en-GB'],
      ['1.000,5', 'en-GB'],
      ['12.34567', 'en-GB'],
      ['-5', 'en-GB'],
      ['abc', 'en-GB'],
      ['', 'en-GB'],
      ['0', 'en-GB'],
      ['0.0000', 'en-GB'],
      ['12345678901', 'en-GB'],
    ] as const) {
      assert.equal(read(text, language), null, `${text} in ${language}`);
    }
  });

  it('says how to write the amount, in the language’s own way', () => {
    const english = parseAmount('1,5', 'en-GB');
    const german = parseAmount('1.5', 'de-DE');
    assert.ok(!english.ok && english.message.includes('1,250.50'), JSON.stringify(english));
    assert.ok(!german.ok && german.message.includes('1.250,50'), JSON.stringify(german));
  });

  it('reads Russian as Russians write it, and says what is wrong in Russian', async () => {
    assert.equal(read('1 000,5', 'ru'), '1000.5');
    assert.equal(read('0,0075', 'ru'), '0.0075');
    assert.equal(read('1.5', 'ru'), null);
    await i18next.changeLanguage('ru');
    try {
      const refused = parseAmount('1.5', 'ru');
      assert.ok(!refused.ok && refused.message.startsWith('Напишите сумму так: 1'), JSON.stringify(refused));
      const empty = parseAmount('', 'ru');
      assert.ok(!empty.ok && empty.message === 'Укажите сумму.');
    } finally {
      await i18next.changeLanguage('en');
    }
  });

  it('reads a whole number grouped as the language writes it, or a space, and nothing else (parseWholeNumber)', () => {
    const whole = (text: string, language: string) => {
      const parsed = parseWholeNumber(text, language);
      return parsed.ok ? parsed.value : null;
    };
    assert.equal(whole('50,000', 'en-GB'), 50000);
    assert.equal(whole('50 000', 'en-GB'), 50000);
    assert.equal(whole('50 000', 'ru-RU'), 50000);
    assert.equal(whole('1\u00a0250\u00a0000', 'ru'), 1250000);
    assert.equal(whole(' 50000 ', 'ru'), 50000);
    assert.equal(whole('50.000', 'de-DE'), 50000);
    for (const [text, language] of [
      ['50,000', 'ru'],
      ['50.5', 'en-GB'],
      ['5,00', 'en-GB'],
      ['-5', 'en-GB'],
      ['5e4', 'en-GB'],
      ['', 'en-GB'],
    ] as const) {
      assert.equal(whole(text, language), null, `${text} in ${language}`);
    }
  });

  it('reads every money field of the advertiser’s forms one way (readMoney): a thousand is "1,000", a minus is refused in the form’s words', () => {
    const money = (text: string, optional = false) => readMoney(text, { optional }, 'en-GB');
    assert.deepEqual(money('1,000'), { ok: true, value: '1000' });
    assert.deepEqual(money('1,000', true), { ok: true, value: '1000' });
    assert.deepEqual(money('', true), { ok: true, value: null }, 'an empty limit is none');
    assert.deepEqual(money('0', true), { ok: true, value: null }, 'and so is 0');
    assert.equal(money('0').ok, false, 'a bid of 0 is not one');
    const negative = money('-0.5');
    assert.ok(
      !negative.ok && negative.message === 'An amount can’t be below zero: write it without a minus.',
      JSON.stringify(negative),
    );
    const credit = parseAmount('-0.5', 'en-GB');
    assert.ok(!credit.ok && /buttons say which way/.test(credit.message), 'the balance moves keep their own words');
    assert.deepEqual(readMoney('1 000,5', { optional: true }, 'ru'), { ok: true, value: '1000.5' });
  });

  it('reads every whole number of the advertiser’s forms one way (readWholeNumber), a price in its own words', () => {
    assert.deepEqual(readWholeNumber('1,000', {}, 'en-GB'), { ok: true, value: 1000 });
    assert.deepEqual(readWholeNumber('', { optional: true }, 'en-GB'), { ok: true, value: null });
    assert.deepEqual(readWholeNumber('1,990', { price: true }, 'en-GB'), { ok: true, value: 1990 });
    const cents = readWholeNumber('49.99', { price: true }, 'en-GB');
    assert.ok(!cents.ok && cents.message === 'Write the price in whole units, like 1,990.', JSON.stringify(cents));
    const negative = readWholeNumber('-3', {}, 'en-GB');
    assert.ok(!negative.ok && /without a minus/.test(negative.message), JSON.stringify(negative));
  });
});
