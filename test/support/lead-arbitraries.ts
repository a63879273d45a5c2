import { LEAD_FIELDS, type LeadField } from '@leadflow/core/lead-fields';
import { US_STATE_CODES } from '@leadflow/core/us-states';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import fc from 'fast-check';

// Leads for property tests: valid ones written in every accepted way, with what validation must make of
// them, and any lead at all (fields kept, dropped, mangled or replaced by arbitrary text).

export const NOW = new Date('2025-06-15T12:00:00Z');

/** A valid value as sent, and how validation must normalize it. */
interface Sample {
  text: string;
  normalized: string;
}

const same = (text: string): Sample => ({ text, normalized: text });

const digits = (min: number, max = min) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });

const cleanText = (maxLength: number) =>
  fc
    .string({
      unit: fc.oneof(fc.constantFrom(..."abcXYZ019 .,-'"), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
      maxLength,
    })
    .filter(
      (text) => text.trim() !== '' && [...text].length <= maxLength && !/[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}]/u.test(text),
    )
    .map((text) => ({ text, normalized: text.trim() }));

/** Cents as an amount text in the ways publishers write them: "12", "12.5", "12.50", "0012.50". */
const amountSample = (minCents: number, maxCents: number) =>
  fc.tuple(fc.integer({ min: minCents, max: maxCents }), fc.boolean(), fc.nat(2)).map(([cents, padWhole, style]) => {
    const whole = String(Math.floor(cents / 100));
    const fraction = String(cents % 100).padStart(2, '0');
    const written = (padWhole ? '00' : '') + whole;
    const trimmedFraction = fraction.endsWith('0') ? fraction.slice(0, 1) : fraction;
    const text =
      style === 0 && cents % 100 === 0
        ? written
        : style === 1
          ? `${written}.${trimmedFraction}`
          : `${written}.${fraction}`;
    return { sample: { text, normalized: `${whole}.${fraction}` }, cents };
  });

const ssnSample = fc
  .tuple(
    fc.integer({ min: 1, max: 899 }).filter((area) => area !== 666),
    fc.integer({ min: 1, max: 99 }),
    fc.integer({ min: 1, max: 9999 }),
    fc.boolean(),
  )
  .map(([area, group, serial, dashed]) => {
    const parts = [String(area).padStart(3, '0'), String(group).padStart(2, '0'), String(serial).padStart(4, '0')];
    return { text: parts.join(dashed ? '-' : ''), normalized: parts.join('') };
  });

const phoneSample = fc
  .tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), digits(4), fc.nat(5))
  .map(([area, exchange, line, style]) => {
    const normalized = `${area}${exchange}${line}`;
    const written = [
      normalized,
      `(${area}) ${exchange}-${line}`,
      `${area}-${exchange}-${line}`,
      `${area}.${exchange}.${line}`,
      `+1 ${area} ${exchange} ${line}`,
      `1${normalized}`,
    ][style];
    return { text: written, normalized };
  });

const stateSample = fc
  .constantFrom(...US_STATE_CODES)
  .chain((code) => fc.mixedCase(fc.constant(code)).map((text) => ({ text, normalized: code })));

const emailSample = fc
  .emailAddress()
  .filter((address) => address.length <= 254)
  .map((address) => {
    const at = address.lastIndexOf('@');
    return { text: address, normalized: address.slice(0, at + 1) + address.slice(at + 1).toLowerCase() };
  });

const isoDate = (min: Date, max: Date) =>
  fc.date({ min, max, noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10));

const DAY_MS = 24 * 60 * 60 * 1000;

/** A birth date of an applicant from exactly 18 to 120 years old at `now`, which is never a 29 February. */
function birthDateAt(now: Date, seed: number): string {
  const [year, month, day] = [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
  const earliest = Date.UTC(year - 121, month, day + 1);
  const latest = Date.UTC(year - 18, month, day);
  const days = (latest - earliest) / DAY_MS;
  return new Date(earliest + (seed % (days + 1)) * DAY_MS).toISOString().slice(0, 10);
}

const abaSample = digits(8)
  .map((first) => {
    const weights = [3, 7, 1, 3, 7, 1, 3, 7];
    const sum = [...first].reduce((total, digit, i) => total + weights[i] * Number(digit), 0);
    return first + String((10 - (sum % 10)) % 10);
  })
  .filter((number) => number !== '000000000')
  .map(same);

const printableAscii = fc.constantFrom(
  ...Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)),
);

const trackingSample = fc
  .uniqueArray(
    fc.tuple(
      fc.string({
        unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ0123456789_'),
        minLength: 1,
        maxLength: 64,
      }),
      fc
        .string({ unit: 'grapheme', maxLength: 20 })
        .filter((value) => !/[\p{Cc}\p{Cs}\p{Cf}\p{Zl}\p{Zp}]/u.test(value)),
      fc.boolean(),
    ),
    { maxLength: 50, selector: ([name]) => name },
  )
  .map((pairs) => {
    const text = pairs
      .map(([name, value, encodeKey]) => {
        const key = encodeKey ? encodeURIComponent(`tPar[${name}]`) : `tPar[${name}]`;
        return `${key}=${encodeURIComponent(value).replaceAll('%20', '+')}`;
      })
      .join('&');
    return { text, params: Object.fromEntries(pairs.map(([name, value]) => [name, value])) };
  })
  .filter(({ text }) => [...text].length <= 4096);

const monthsSample = fc.tuple(fc.integer({ min: 0, max: 1200 }), fc.boolean()).map(([months, padded]) => ({
  text: (padded && months < 1000 ? '0' : '') + String(months),
  normalized: String(months),
}));

const whitespace = fc.constantFrom('', ' ', '  ', '\t', '\n', '\u00a0');
const padded = (sample: fc.Arbitrary<Sample>) =>
  fc
    .tuple(whitespace, sample, whitespace)
    .map(([before, { text, normalized }, after]) => ({ text: before + text + after, normalized }));
const optional = (sample: fc.Arbitrary<Sample>) => fc.option(sample, { nil: { text: '', normalized: '' } });

/** A lead that satisfies every rule at `now`, with what validation must make of it. */
export const validLead = (nowSample: fc.Arbitrary<Date>) =>
  fc
    .record({
      now: nowSample,
      birthSeed: fc.nat(),
      dobPadding: fc.tuple(whitespace, whitespace),
      price: amountSample(0, 10_000_00),
      loanAmount: amountSample(1, 10_000_000_00),
      incomeNetMonthly: fc.option(amountSample(0, 1_000_000_00), { nil: undefined }),
      tPar: fc.option(trackingSample, { nil: undefined }),
      testMode: fc.constantFrom('', '0', '1'),
      samples: fc.record({
        ssn: padded(ssnSample),
        firstName: cleanText(100),
        lastName: cleanText(100),
        email: padded(emailSample),
        address: cleanText(200),
        city: cleanText(100),
        state: padded(stateSample),
        zip: digits(5).chain((five) =>
          fc.option(digits(4), { nil: undefined }).map((four) => same(four ? `${five}-${four}` : five)),
        ),
        homePhone: padded(phoneSample),
        cellPhone: phoneSample,
        userIp: fc.oneof(fc.ipV4(), fc.ipV6()).map((ip) => ({ text: ip, normalized: ip.toLowerCase() })),
        clickid: fc.string({ unit: printableAscii, minLength: 1, maxLength: 128 }).map(same),
        incomeType: optional(
          fc
            .constantFrom('EMPLOYMENT', 'BENEFITS', 'SELF_EMPLOYED')
            .chain((type) => fc.mixedCase(fc.constant(type)).map((text) => ({ text, normalized: type }))),
        ),
        bankAba: optional(abaSample),
        bankAccountNumber: optional(digits(4, 17).map(same)),
        driversLicenseNumber: optional(cleanText(32)),
        driversLicenseState: optional(stateSample),
        incomePaymentFrequency: optional(cleanText(64)),
        incomeNextDate1: optional(isoDate(new Date('1000-01-01'), new Date('9999-12-31')).map(same)),
        incomeNextDate2: optional(isoDate(new Date('2020-01-01'), new Date('2030-12-31')).map(same)),
        bankDirectDeposit: optional(cleanText(64)),
        bankAccountType: optional(cleanText(64)),
        bankAccountLengthMonths: optional(monthsSample),
        ownHome: optional(cleanText(64)),
        addressLengthMonths: optional(monthsSample),
        workPhone: optional(phoneSample),
        consentEmailSms: optional(cleanText(64)),
        userAgent: optional(cleanText(512)),
        webSiteUrl: optional(
          fc
            .webUrl()
            .filter((url) => url.length <= 2048)
            .map(same),
        ),
        creditRating: optional(cleanText(64)),
        loanPurpose: optional(cleanText(100)),
      }),
    })
    .map(
      ({
        now,
        birthSeed,
        dobPadding: [before, after],
        price,
        loanAmount,
        incomeNetMonthly,
        tPar,
        testMode,
        samples,
      }) => {
        const dob = birthDateAt(now, birthSeed);
        const all: Record<LeadField, Sample> = {
          ...samples,
          dob: { text: before + dob + after, normalized: dob },
          price: price.sample,
          loanAmount: loanAmount.sample,
          incomeNetMonthly: incomeNetMonthly?.sample ?? { text: '', normalized: '' },
          tPar: tPar ? same(tPar.text) : { text: '', normalized: '' },
          testMode: same(testMode),
        };
        const lead = Lead.fromPartial({});
        const fields = Lead.fromPartial({});
        for (const field of LEAD_FIELDS) {
          lead[field] = all[field].text;
          fields[field] = all[field].normalized;
        }
        return {
          now,
          lead,
          expected: {
            fields,
            priceCents: price.cents,
            loanAmountCents: loanAmount.cents,
            incomeNetMonthlyCents: incomeNetMonthly?.cents ?? null,
            test: testMode === '1',
            tracking: tPar?.params ?? {},
          },
        };
      },
    );

const controlCharacter = fc
  .integer({ min: 0, max: 0x9f })
  .filter((code) => code < 0x20 || code >= 0x7f)
  .map((code) => String.fromCharCode(code));
const anyUtf16Unit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Any text at all: unicode, control characters, lone surrogates, numbers, huge strings, near misses. */
const anyText = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }) },
  { weight: 3, arbitrary: fc.string({ unit: anyUtf16Unit, maxLength: 60 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.oneof(controlCharacter, fc.constantFrom('a', '1', '-', '%', '&', '=', '[', ']')),
      maxLength: 40,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.double().map(String),
      fc.integer().map(String),
      fc.bigInt().map(String),
      fc.float().map((n) => n.toFixed(3)),
    ),
  },
  { weight: 2, arbitrary: fc.date({ noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: anyUtf16Unit, minLength: 1, maxLength: 3 }), fc.integer({ min: 1000, max: 30000 }))
      .map(([s, n]) => s.repeat(n)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'null',
      'undefined',
      'NaN',
      'Infinity',
      '-0',
      '1e3',
      '0x1F',
      '[object Object]',
      '%',
      '%zz',
      '%E0%A4%A',
      '__proto__',
      'constructor',
      'toString',
      'tPar[__proto__]=1',
      'tPar[a]=%ED%A0%80',
      '\ud800',
      '\udfff\ud800',
      '1\u00002',
    ),
  },
);

/** One character inserted, deleted or replaced somewhere in a text. */
const edit = fc.record({
  position: fc.nat(),
  kind: fc.constantFrom('insert', 'delete', 'replace'),
  char: fc.oneof(anyUtf16Unit, controlCharacter, fc.constantFrom('0', '9', '-', '.', ' ', '@', '%')),
});

function applyEdit(
  text: string,
  { position, kind, char }: typeof edit extends fc.Arbitrary<infer E> ? E : never,
): string {
  const at = position % (text.length + 1);
  const rest = kind === 'insert' ? text.slice(at) : text.slice(at + 1);
  return text.slice(0, at) + (kind === 'delete' ? '' : char) + rest;
}

/** What becomes of one field of a valid lead: kept, dropped, mangled or replaced by any text. */
const fieldFate = fc.oneof(
  fc.constant((valid: string) => valid),
  fc.constant(() => ''),
  edit.map((change) => (valid: string) => applyEdit(valid, change)),
  anyText.map((text) => () => text),
);

/** A lead whose every field is valid, missing, mangled or arbitrary, with some fields flagged as non-strings. */
export const anyLead = fc
  .record({
    valid: validLead(fc.constant(NOW)),
    fates: fc.array(fieldFate, { minLength: LEAD_FIELDS.length, maxLength: LEAD_FIELDS.length }),
    nonStringFields: fc.subarray([...LEAD_FIELDS, 'unknownField', '__proto__'], { maxLength: 5 }),
  })
  .map(({ valid, fates, nonStringFields }) => {
    const lead = Lead.fromPartial({});
    LEAD_FIELDS.forEach((field, i) => {
      lead[field] = fates[i](valid.lead[field]);
    });
    return { lead, nonStringFields };
  });
