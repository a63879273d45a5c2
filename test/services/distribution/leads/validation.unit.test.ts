import {
  isLeadField,
  LEAD_FIELDS,
  type LeadField,
  REQUIRED_LEAD_FIELDS,
  SENSITIVE_LEAD_FIELDS,
} from '@leadflow/core/lead-fields';
import {
  earlierFingerprintSource,
  type LeadValidation,
  leadFingerprintSource,
  normalizedClickid,
  type ValidLead,
  validateLead,
} from '@leadflow/distribution/src/leads/validation';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';

const NOW = new Date('2025-06-15T12:00:00Z');
const FORMAT_CHARACTERS_MESSAGE =
  'must not contain invisible formatting characters (direction controls, zero-width characters)';

const COMPLETE_LEAD: Lead = {
  price: '12.5',
  loanAmount: '1500',
  ssn: '123-45-6789',
  firstName: ' Jane ',
  lastName: 'Doe',
  email: 'Jane.Doe@Example.COM',
  dob: '1990-04-01',
  address: '12 Main St',
  city: 'Springfield',
  state: 'il',
  zip: '62701-1234',
  homePhone: '(217) 555-0134',
  cellPhone: '+1 217 555 0199',
  userIp: '203.0.113.7',
  clickid: 'click-0001',
  testMode: '1',
  incomeType: 'EMPLOYMENT',
  incomeNetMonthly: '3200.5',
  bankAba: '021000021',
  bankAccountNumber: '123456789012',
  driversLicenseNumber: 'D1234567',
  driversLicenseState: 'IL',
  incomePaymentFrequency: 'BIWEEKLY',
  incomeNextDate1: '2025-06-20',
  incomeNextDate2: '2025-07-04',
  bankDirectDeposit: 'true',
  bankAccountType: 'CHECKING',
  bankAccountLengthMonths: '036',
  ownHome: 'false',
  addressLengthMonths: '24',
  workPhone: '217.555.0100',
  consentEmailSms: '1',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
  webSiteUrl: 'https://loans.example.com/apply',
  creditRating: 'GOOD',
  loanPurpose: 'DEBT_CONSOLIDATION',
  tPar: 'tPar[affiliate]=aff_1&tPar[sub]=summer%20promo&tPar[transaction]=tx+42',
};

const REQUIRED_ONLY: Lead = {
  ...Lead.fromPartial({}),
  ...Object.fromEntries(REQUIRED_LEAD_FIELDS.map((field) => [field, COMPLETE_LEAD[field]])),
};

function validate(changes: Partial<Lead>, nonStringFields: string[] = [], now = NOW): LeadValidation {
  return validateLead({ ...COMPLETE_LEAD, ...changes }, nonStringFields, now);
}

function validLead(changes: Partial<Lead> = {}, now = NOW): ValidLead {
  const result = validate(changes, [], now);
  if (!result.ok) expect.fail(`expected a valid lead, got ${JSON.stringify(result.errors)}`);
  return result.lead;
}

function errorsOf(changes: Partial<Lead>, now = NOW): Record<string, string> {
  const result = validate(changes, [], now);
  if (result.ok) expect.fail('expected validation errors');
  return result.errors;
}

/** Each value is accepted and normalized as given. */
function expectAccepted(field: LeadField, normalizedByValue: Record<string, string>): void {
  for (const [value, normalized] of Object.entries(normalizedByValue)) {
    expect(validLead({ [field]: value }).fields[field], `${field} = ${JSON.stringify(value)}`).to.equal(normalized);
  }
}

/** Each value is rejected with exactly one error, for the field, with the message. */
function expectRejected(field: LeadField, values: string[], message: string): void {
  for (const value of values) {
    expect(errorsOf({ [field]: value }), `${field} = ${JSON.stringify(value)}`).to.deep.equal({ [field]: message });
  }
}

describe('lead fields', () => {
  it('lists every field of the generated Lead, in proto order', () => {
    expect(LEAD_FIELDS).to.deep.equal(Object.keys(Lead.fromPartial({})));
    expect(LEAD_FIELDS).to.have.length(37);
  });

  it('marks the 15 fields the spec requires', () => {
    expect(REQUIRED_LEAD_FIELDS).to.have.members([
      'price',
      'loanAmount',
      'ssn',
      'firstName',
      'lastName',
      'email',
      'dob',
      'address',
      'city',
      'state',
      'zip',
      'homePhone',
      'cellPhone',
      'userIp',
      'clickid',
    ]);
    expect(REQUIRED_LEAD_FIELDS).to.have.length(15);
  });

  it('marks the personal fields: encrypted, masked, purged', () => {
    expect(SENSITIVE_LEAD_FIELDS).to.have.members([
      'ssn',
      'dob',
      'bankAba',
      'bankAccountNumber',
      'driversLicenseNumber',
      'firstName',
      'lastName',
      'email',
      'address',
      'homePhone',
      'cellPhone',
      'workPhone',
      'userIp',
    ]);
  });

  it('recognises only the exact JSON names', () => {
    expect(isLeadField('loanAmount')).to.equal(true);
    expect(isLeadField('tPar')).to.equal(true);
    for (const name of ['loan_amount', 'SSN', 'constructor', '__proto__', 'toString', '']) {
      expect(isLeadField(name), name).to.equal(false);
    }
  });
});

describe('validateLead', () => {
  describe('a complete lead', () => {
    it('passes with every value normalized', () => {
      const lead = validLead();
      expect(lead.fields).to.deep.equal({
        ...COMPLETE_LEAD,
        price: '12.50',
        loanAmount: '1500.00',
        ssn: '123456789',
        firstName: 'Jane',
        email: 'Jane.Doe@example.com',
        state: 'IL',
        homePhone: '2175550134',
        cellPhone: '2175550199',
        incomeNetMonthly: '3200.50',
        bankAccountLengthMonths: '36',
        workPhone: '2175550100',
      });
      expect(lead.priceCents).to.equal(1250);
      expect(lead.loanAmountCents).to.equal(150000);
      expect(lead.incomeNetMonthlyCents).to.equal(320050);
      expect(lead.test).to.equal(true);
      expect(lead.tracking).to.deep.equal({ affiliate: 'aff_1', sub: 'summer promo', transaction: 'tx 42' });
      expect(lead.ageYears).to.equal(35);
    });

    it('passes with only the required fields, the rest empty', () => {
      const result = validateLead(REQUIRED_ONLY, [], NOW);
      if (!result.ok) expect.fail(JSON.stringify(result.errors));
      expect(result.lead.incomeNetMonthlyCents).to.equal(null);
      expect(result.lead.test).to.equal(false);
      expect(result.lead.tracking).to.deep.equal({});
      expect(result.lead.fields.bankAba).to.equal('');
      expect(Object.keys(result.lead.fields)).to.deep.equal([...LEAD_FIELDS]);
    });
  });

  describe('required fields', () => {
    it('reports each missing required field as required, all at once', () => {
      const result = validateLead(Lead.fromPartial({}), [], NOW);
      expect(result).to.deep.equal({
        ok: false,
        errors: Object.fromEntries(REQUIRED_LEAD_FIELDS.map((field) => [field, 'is required'])),
      });
    });

    it('treats an empty or whitespace-only value as missing', () => {
      expect(errorsOf({ ssn: '', email: '  \t ' })).to.deep.equal({ ssn: 'is required', email: 'is required' });
    });

    it('accepts missing optional fields', () => {
      const optional = LEAD_FIELDS.filter((field) => !(REQUIRED_LEAD_FIELDS as readonly string[]).includes(field));
      expect(
        validateLead({ ...COMPLETE_LEAD, ...Object.fromEntries(optional.map((f) => [f, ' '])) }, [], NOW).ok,
      ).to.equal(true);
    });
  });

  describe('non-string values', () => {
    it('reports a field named in nonStringFields as not a string, and checks it no further', () => {
      const result = validate({ loanAmount: '' }, ['loanAmount', 'testMode']);
      expect(result).to.deep.equal({
        ok: false,
        errors: { loanAmount: 'must be a string', testMode: 'must be a string' },
      });
    });

    it('ignores unknown names in nonStringFields', () => {
      expect(validate({}, ['extra', '__proto__']).ok).to.equal(true);
    });

    it('reports a non-string value passed by a JavaScript caller', () => {
      const lead = { ...COMPLETE_LEAD, price: 12, city: undefined } as unknown as Lead;
      const result = validateLead(lead, [], NOW);
      expect(result).to.deep.equal({ ok: false, errors: { price: 'must be a string', city: 'must be a string' } });
    });
  });

  it('reports every offending field at once, one entry each', () => {
    const errors = errorsOf({
      ssn: '666-12-3456',
      email: 'nobody',
      dob: '2023-02-29',
      state: 'XX',
      zip: '1234',
      homePhone: '123',
      userIp: 'localhost',
      price: '1e3',
      bankAba: '021000022',
      tPar: 'tPar[sub]=%E0%A4%A',
      firstName: '',
    });
    expect(errors).to.deep.equal({
      price: 'must be an amount such as 1000.00, with at most 2 decimals',
      ssn: 'is not a valid Social Security number',
      firstName: 'is required',
      email: 'must be a valid e-mail address',
      dob: 'must be a date in YYYY-MM-DD form',
      state: 'must be a US state code',
      zip: 'must be a 5-digit ZIP code or ZIP+4',
      homePhone: 'must be a 10-digit phone number',
      userIp: 'must be an IPv4 or IPv6 address',
      bankAba: 'is not a valid ABA routing number',
      tPar: 'has a malformed URL encoding',
    });
    expect(Object.keys(errors), 'errors in proto order').to.deep.equal(LEAD_FIELDS.filter((field) => field in errors));
  });

  describe('ssn', () => {
    it('accepts 9 digits, bare or as 3-2-4 with dashes, and keeps the digits', () => {
      expectAccepted('ssn', {
        '123456789': '123456789',
        '123-45-6789': '123456789',
        '665-01-0001': '665010001',
        '899999999': '899999999',
      });
    });

    it('rejects anything but 9 digits', () => {
      expectRejected(
        'ssn',
        [
          '12345678',
          '1234567890',
          '123-456789',
          '12-345-6789',
          '123 45 6789',
          '123.45.6789',
          'abcdefghi',
          '１２３４５６７８９',
          '+123456789',
        ],
        'must be 9 digits',
      );
    });

    it('rejects numbers the SSA never issues', () => {
      expectRejected(
        'ssn',
        ['000-12-3456', '666-12-3456', '900-12-3456', '999-12-3456', '123-00-4567', '123-45-0000', '000000000'],
        'is not a valid Social Security number',
      );
    });
  });

  describe('email', () => {
    it('accepts real address shapes and lower-cases the domain only', () => {
      expectAccepted('email', {
        'jane@example.com': 'jane@example.com',
        'Jane.Doe+loans@Mail.Example.CO.UK': 'Jane.Doe+loans@mail.example.co.uk',
        "o'brien_1@sub-domain.example.org": "o'brien_1@sub-domain.example.org",
        'user@xn--80ak6aa92e.xn--p1ai': 'user@xn--80ak6aa92e.xn--p1ai',
        [`${'a'.repeat(64)}@example.com`]: `${'a'.repeat(64)}@example.com`,
        [`a@${'b'.repeat(63)}.com`]: `a@${'b'.repeat(63)}.com`,
      });
    });

    it('accepts an address of exactly 254 characters', () => {
      const address = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
      expect(address).to.have.length(254);
      expect(validLead({ email: address }).fields.email).to.equal(address);
    });

    it('rejects malformed addresses and broken length limits', () => {
      expectRejected(
        'email',
        [
          'jane',
          'jane@',
          '@example.com',
          'jane@example',
          'jane@example.c',
          'jane@example.123',
          'jane@@example.com',
          'jane doe@example.com',
          '.jane@example.com',
          'jane.@example.com',
          'ja..ne@example.com',
          'jane@-example.com',
          'jane@example-.com',
          'jane@exa_mple.com',
          'jane@example..com',
          '"jane"@example.com',
          'jane@[192.0.2.1]',
          'jané@example.com',
          'jane@exämple.com',
          'jane@example.com.',
          `${'a'.repeat(65)}@example.com`,
          `a@${'b'.repeat(64)}.com`,
          `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`,
        ],
        'must be a valid e-mail address',
      );
    });
  });

  describe('dob', () => {
    it('accepts real dates, leap days included', () => {
      expectAccepted('dob', { '2000-02-29': '2000-02-29', '1996-02-29': '1996-02-29', '1990-12-31': '1990-12-31' });
    });

    it('rejects dates that do not exist or are not YYYY-MM-DD', () => {
      expectRejected(
        'dob',
        [
          '2003-02-29',
          '1900-02-29',
          '2000-02-30',
          '1990-04-31',
          '1990-13-01',
          '1990-00-10',
          '1990-01-00',
          '1990-4-1',
          '19900401',
          '1990/04/01',
          '04/01/1990',
          '1990-04-01T00:00:00Z',
          '１９９０-04-01',
        ],
        'must be a date in YYYY-MM-DD form',
      );
    });

    it('accepts an applicant of exactly 18 and of 120, rejects one a day short of 18 and one of 121', () => {
      expect(validLead({ dob: '2007-06-15' }).ageYears).to.equal(18);
      expect(validLead({ dob: '1905-06-15' }).ageYears).to.equal(120);
      expect(validLead({ dob: '1904-06-16' }).ageYears).to.equal(120);
      const message = 'applicant must be 18 to 120 years old';
      expectRejected('dob', ['2007-06-16', '1904-06-15', '2030-01-01', '2025-06-15'], message);
    });

    it('has a 29 February birthday come of age on 1 March in a common year', () => {
      expect(errorsOf({ dob: '2004-02-29' }, new Date('2022-02-28T23:59:59Z'))).to.deep.equal({
        dob: 'applicant must be 18 to 120 years old',
      });
      expect(validLead({ dob: '2004-02-29' }, new Date('2022-03-01T00:00:00Z')).ageYears).to.equal(18);
    });

    it('measures age on the UTC calendar day', () => {
      const eveningInChicago = new Date('2025-06-15T23:30:00-05:00');
      expect(validLead({ dob: '2007-06-16' }, eveningInChicago).ageYears).to.equal(18);
    });
  });

  describe('state and driversLicenseState', () => {
    for (const field of ['state', 'driversLicenseState'] as const) {
      it(`${field}: accepts USPS codes in either case, normalized to upper case`, () => {
        expectAccepted(field, {
          IL: 'IL',
          il: 'IL',
          Ny: 'NY',
          DC: 'DC',
          PR: 'PR',
          vi: 'VI',
          GU: 'GU',
          AS: 'AS',
          MP: 'MP',
          AE: 'AE',
          AA: 'AA',
          AP: 'AP',
        });
      });

      it(`${field}: rejects anything else`, () => {
        expectRejected(
          field,
          ['XX', 'FM', 'MH', 'PW', 'ILL', 'I', 'I L', 'ıa', 'Illinois', '12'],
          'must be a US state code',
        );
      });
    }
  });

  describe('zip', () => {
    it('accepts 5 digits and ZIP+4', () => {
      expectAccepted('zip', { '62701': '62701', '62701-1234': '62701-1234', '00501': '00501' });
    });

    it('rejects other shapes', () => {
      expectRejected(
        'zip',
        ['6270', '627011', '62701-123', '62701-12345', '62701 1234', '627011234', 'ABCDE', '62701-'],
        'must be a 5-digit ZIP code or ZIP+4',
      );
    });
  });

  describe('homePhone, cellPhone and workPhone', () => {
    for (const field of ['homePhone', 'cellPhone', 'workPhone'] as const) {
      it(`${field}: accepts 10 digits with common punctuation and an optional leading 1 or +1`, () => {
        expectAccepted(field, {
          '2175550134': '2175550134',
          '(217) 555-0134': '2175550134',
          '217-555-0134': '2175550134',
          '217.555.0134': '2175550134',
          '+1 217 555 0134': '2175550134',
          '1-217-555-0134': '2175550134',
          '12175550134': '2175550134',
          '+1 (217) 555-0134': '2175550134',
        });
      });

      it(`${field}: rejects what is not 10 digits`, () => {
        expectRejected(
          field,
          [
            '217555013',
            '217555013456',
            '+44 20 7946 0958',
            '+2175550134',
            '217-555-0134 ext 5',
            '217/555/0134',
            'phone',
            '２１７５５５０１３４',
          ],
          'must be a 10-digit phone number',
        );
      });

      it(`${field}: rejects area codes and exchanges starting with 0 or 1`, () => {
        expectRejected(
          field,
          ['0175550134', '1175550134', '2170550134', '2171550134', '+1 (017) 555-0134'],
          'must be a valid North American phone number',
        );
      });
    }
  });

  describe('userIp', () => {
    it('accepts IPv4 and IPv6, lower-casing IPv6', () => {
      expectAccepted('userIp', {
        '203.0.113.7': '203.0.113.7',
        '0.0.0.0': '0.0.0.0',
        '::1': '::1',
        '2001:DB8::1': '2001:db8::1',
        '2001:0db8:0000:0000:0000:ff00:0042:8329': '2001:0db8:0000:0000:0000:ff00:0042:8329',
        '::ffff:192.0.2.1': '::ffff:192.0.2.1',
      });
    });

    it('rejects anything else, IPv6 zones included', () => {
      expectRejected(
        'userIp',
        ['256.1.1.1', '1.2.3', '01.2.3.4', '1.2.3.4/24', 'fe80::1%eth0', '2001:db8::g', 'localhost', '1.2.3.4:80'],
        'must be an IPv4 or IPv6 address',
      );
    });
  });

  describe('price, loanAmount and incomeNetMonthly', () => {
    it('turn decimal amounts into integer cents without floating point', () => {
      const cents = (price: string) => validLead({ price }).priceCents;
      expect(cents('0')).to.equal(0);
      expect(cents('0.1')).to.equal(10);
      expect(cents('0.29')).to.equal(29);
      expect(cents('12.5')).to.equal(1250);
      expect(cents('1000.00')).to.equal(100000);
      expect(cents('007.50')).to.equal(750);
      expect(cents('10000')).to.equal(1000000);
      expect(validLead({ loanAmount: '0.01' }).loanAmountCents).to.equal(1);
      expect(validLead({ loanAmount: '10000000.00' }).loanAmountCents).to.equal(1000000000);
      expect(validLead({ loanAmount: '4.35' }).loanAmountCents).to.equal(435);
      expect(validLead({ incomeNetMonthly: '0' }).incomeNetMonthlyCents).to.equal(0);
      expect(validLead({ incomeNetMonthly: '1000000' }).incomeNetMonthlyCents).to.equal(100000000);
    });

    it('normalize to two decimals', () => {
      expectAccepted('price', { '0': '0.00', '0.1': '0.10', '007.5': '7.50', '10000.00': '10000.00' });
      expectAccepted('loanAmount', { '500': '500.00', '0.05': '0.05' });
    });

    for (const field of ['price', 'loanAmount', 'incomeNetMonthly'] as const) {
      it(`${field}: rejects what is not a plain amount with at most 2 decimals`, () => {
        expectRejected(
          field,
          [
            '1e3',
            '-1',
            '+1',
            '1,000',
            '1 000',
            '1.',
            '.5',
            '1.234',
            '0x10',
            'NaN',
            'Infinity',
            '$100',
            '１００',
            '12.5.0',
          ],
          'must be an amount such as 1000.00, with at most 2 decimals',
        );
      });
    }

    it('enforce the ranges', () => {
      expectRejected('price', ['10000.01', '99999999999999999999999'], 'must be from 0.00 to 10000.00');
      expectRejected(
        'loanAmount',
        ['0', '0.00', '000', '10000000.01', '9'.repeat(1000)],
        'must be from 0.01 to 10000000.00',
      );
      expectRejected('incomeNetMonthly', ['1000000.01'], 'must be from 0.00 to 1000000.00');
    });
  });

  describe('incomeType', () => {
    it('accepts the three types in either case', () => {
      expectAccepted('incomeType', { EMPLOYMENT: 'EMPLOYMENT', benefits: 'BENEFITS', Self_Employed: 'SELF_EMPLOYED' });
    });

    it('rejects other values', () => {
      expectRejected(
        'incomeType',
        ['SALARY', 'SELF EMPLOYED', 'ſelf_employed', 'EMPLOYMENT,BENEFITS'],
        'must be EMPLOYMENT, BENEFITS or SELF_EMPLOYED',
      );
    });
  });

  describe('bankAba', () => {
    it('accepts real routing numbers', () => {
      expectAccepted('bankAba', {
        '011000015': '011000015',
        '021000021': '021000021',
        '121000358': '121000358',
        '026009593': '026009593',
      });
    });

    it('rejects a wrong check digit and all zeros', () => {
      expectRejected(
        'bankAba',
        ['021000022', '011000016', '123456789', '000000000'],
        'is not a valid ABA routing number',
      );
    });

    it('rejects what is not 9 digits', () => {
      expectRejected('bankAba', ['02100002', '0210000210', '02100002a', '021-000-021'], 'must be 9 digits');
    });
  });

  describe('bankAccountNumber', () => {
    it('accepts 4 to 17 digits', () => {
      expectAccepted('bankAccountNumber', {
        '1234': '1234',
        '12345678901234567': '12345678901234567',
        '0000123': '0000123',
      });
    });

    it('rejects anything else', () => {
      expectRejected(
        'bankAccountNumber',
        ['123', '123456789012345678', '1234-5678', 'ABCD1234', '1234 5678'],
        'must be 4 to 17 digits',
      );
    });
  });

  describe('incomeNextDate1 and incomeNextDate2', () => {
    for (const field of ['incomeNextDate1', 'incomeNextDate2'] as const) {
      it(`${field}: accepts real dates only`, () => {
        expectAccepted(field, { '2024-02-29': '2024-02-29', '2025-12-31': '2025-12-31' });
        expectRejected(
          field,
          ['2023-02-29', '2025-06-31', '2025-6-1', 'next friday'],
          'must be a date in YYYY-MM-DD form',
        );
      });
    }
  });

  describe('testMode', () => {
    it('marks a lead as a test with "1" only', () => {
      expect(validLead({ testMode: '1' }).test).to.equal(true);
      expect(validLead({ testMode: '0' }).test).to.equal(false);
      expect(validLead({ testMode: '' }).test).to.equal(false);
    });

    it('rejects other values', () => {
      expectRejected('testMode', ['2', 'true', 'yes', '01', '1.0'], 'must be 0 or 1');
    });
  });

  describe('clickid', () => {
    it('accepts 1 to 128 printable ASCII characters', () => {
      const longest = 'x'.repeat(128);
      expectAccepted('clickid', {
        a: 'a',
        '~!@#$%^&*()_+{}|:"<>?': '~!@#$%^&*()_+{}|:"<>?',
        [longest]: longest,
        ' padded ': 'padded',
      });
    });

    it('rejects longer ids, spaces, control and non-ASCII characters', () => {
      expectRejected(
        'clickid',
        ['x'.repeat(129), 'abc def', 'abc\tdef', 'clické', 'abc\u0000', 'abc\u007f'],
        'must be 1 to 128 printable ASCII characters, no spaces',
      );
    });
  });

  describe('tPar', () => {
    const tracking = (tPar: string) => validLead({ tPar }).tracking;

    it('parses named pairs, URL-decoding names and values with + as a space', () => {
      expect(tracking('tPar[affiliate]=aff_1&tPar[sub]=a%20b+c&tPar[transaction]=%E2%9C%93')).to.deep.equal({
        affiliate: 'aff_1',
        sub: 'a b c',
        transaction: '✓',
      });
      expect(tracking('tPar%5Bsub%5D=x')).to.deep.equal({ sub: 'x' });
      expect(tracking('tPar[sub]=a=b&tPar[empty]=')).to.deep.equal({ sub: 'a=b', empty: '' });
      expect(tracking('&tPar[a]=1&&tPar[b]=2&')).to.deep.equal({ a: '1', b: '2' });
    });

    it('keeps the text as sent in the fields', () => {
      const tPar = 'tPar[sub]=a+b';
      expect(validLead({ tPar }).fields.tPar).to.equal(tPar);
    });

    it('stores a name like __proto__ as an ordinary pair', () => {
      const params = tracking('tPar[__proto__]=x&tPar[constructor]=y');
      expect(Object.keys(params)).to.deep.equal(['__proto__', 'constructor']);
      expect(Object.getPrototypeOf(params)).to.equal(Object.prototype);
    });

    it('reports a malformed encoding as an error, not an exception', () => {
      expectRejected(
        'tPar',
        [
          'tPar[sub]=%E0%A4%A',
          'tPar[sub]=%',
          'tPar[sub]=%zz',
          'tPar[sub]=%C3%28',
          'tPar%5Bsub=1%ZZ',
          'tPar[sub]=%ED%A0%80',
        ],
        'has a malformed URL encoding',
      );
    });

    it('rejects pairs of another shape', () => {
      expectRejected(
        'tPar',
        [
          'affiliate=1',
          'tPar[]=1',
          'tPar[a-b]=1',
          'tPar[sub]',
          'tpar[sub]=1',
          'tPar[sub]x=1',
          `tPar[${'n'.repeat(65)}]=1`,
          'tPar[a]=1&b',
        ],
        'must be tPar[name]=value pairs joined by &, each name 1 to 64 letters, digits or _',
      );
    });

    it('rejects repeated names, control characters, too many pairs and too much text', () => {
      expectRejected('tPar', ['tPar[a]=1&tPar[a]=2'], 'must not repeat a parameter name');
      expectRejected('tPar', ['tPar[a]=%0A', 'tPar[a]=%00'], 'must not contain control characters');
      expectRejected('tPar', ['tPar[a]=%E2%80%AEx', 'tPar[a]=a\u200bb'], FORMAT_CHARACTERS_MESSAGE);
      const pairs = (n: number) => Array.from({ length: n }, (_, i) => `tPar[p${i}]=${i}`).join('&');
      expect(Object.keys(tracking(pairs(50)))).to.have.length(50);
      expectRejected('tPar', [pairs(51)], 'must have at most 50 pairs');
      expect(tracking(`tPar[a]=${'x'.repeat(4088)}`).a).to.have.length(4088);
      expectRejected('tPar', [`tPar[a]=${'x'.repeat(4089)}`], 'must be at most 4096 characters');
      expect(tracking(`tPar[a]=${'😀'.repeat(4088)}`).a).to.equal('😀'.repeat(4088));
      expectRejected('tPar', [`tPar[a]=${'😀'.repeat(4089)}`], 'must be at most 4096 characters');
    });
  });

  describe('free-text fields', () => {
    /**
     * Invisible characters that change what `lead show` or a spreadsheet displays: a right-to-left override
     * ("Smith" shown as "htimS", an address whose digits swap), isolates and marks, zero-width spaces and
     * joiners that make two equal-looking names differ, a byte order mark, a soft hyphen, line separators.
     */
    const SPOOFING_TEXTS = [
      'John\u202eSmith',
      'a\u202ab',
      'a\u202db',
      'a\u2066b\u2069',
      'a\u200eb',
      'a\u200fb',
      'a\u061cb',
      'Jo\u200bhn',
      'a\u200cb',
      'a\u200db',
      'a\u2060b',
      'a\ufeffb',
      'a\u00adb',
      'a\u2028b',
      'a\u2029b',
      'a\u{e0041}b',
    ];

    const limits: [LeadField, number][] = [
      ['firstName', 100],
      ['lastName', 100],
      ['address', 200],
      ['city', 100],
      ['driversLicenseNumber', 32],
      ['incomePaymentFrequency', 64],
      ['bankDirectDeposit', 64],
      ['bankAccountType', 64],
      ['ownHome', 64],
      ['consentEmailSms', 64],
      ['userAgent', 512],
      ['webSiteUrl', 2048],
      ['creditRating', 64],
      ['loanPurpose', 100],
    ];

    for (const [field, max] of limits) {
      it(`${field}: at most ${max} characters, no control characters`, () => {
        expectAccepted(field, {
          ['x'.repeat(max)]: 'x'.repeat(max),
          "  José Ñúñez-O'Brien 😀 ": "José Ñúñez-O'Brien 😀",
        });
        expectRejected(field, ['x'.repeat(max + 1)], `must be at most ${max} characters`);
        // Characters are code points, as JSON Schema's maxLength counts them: an emoji is two UTF-16 units.
        expectAccepted(field, { ['😀'.repeat(max)]: '😀'.repeat(max) });
        expectRejected(field, ['😀'.repeat(max + 1)], `must be at most ${max} characters`);
        expectRejected(
          field,
          ['a\u0000b', 'a\nb', 'a\tb', 'a\u007fb', 'a\u0085b', 'a\ud800b'],
          'must not contain control characters',
        );
        expectRejected(field, SPOOFING_TEXTS, FORMAT_CHARACTERS_MESSAGE);
      });
    }
  });

  describe('bankAccountLengthMonths and addressLengthMonths', () => {
    for (const field of ['bankAccountLengthMonths', 'addressLengthMonths'] as const) {
      it(`${field}: whole months from 0 to 1200`, () => {
        expectAccepted(field, { '0': '0', '1200': '1200', '036': '36', '0000': '0' });
        expectRejected(
          field,
          ['1201', '-1', '1.5', '12 months', '00012', '1e2'],
          'must be a whole number from 0 to 1200',
        );
      });
    }
  });

  describe('messages', () => {
    it('never contain the submitted value', () => {
      const canaries: Partial<Lead> = {
        ssn: '666-31-4159',
        email: 'canary.314159@@example.com',
        dob: '2031-41-59',
        bankAba: '314159266',
        bankAccountNumber: '314159-2653589',
        driversLicenseNumber: `D314159${'9'.repeat(40)}`,
        firstName: `Canary\u0000314159`,
        homePhone: '314-159-26535',
        clickid: 'canary 314159',
        tPar: 'tPar[canary]=%E3%14%15',
        price: '3141.59.26',
      };
      const errors = errorsOf(canaries);
      expect(Object.keys(errors)).to.have.members(Object.keys(canaries));
      const text = JSON.stringify(errors);
      for (const marker of ['314159', '31415', '4159', 'canary', 'Canary', '2653589', '2031']) {
        expect(text).not.to.include(marker);
      }
    });
  });
});

describe('leadFingerprintSource', () => {
  const fingerprint = (lead: Lead) => {
    const result = validateLead(lead, [], NOW);
    if (!result.ok) expect.fail(JSON.stringify(result.errors));
    return leadFingerprintSource(result.lead);
  };

  it('is the JSON of the sent fields as [name, normalized value] pairs, in proto order', () => {
    const source = fingerprint(REQUIRED_ONLY);
    const pairs = JSON.parse(source) as [string, string][];
    expect(pairs.map(([name]) => name)).to.deep.equal([...REQUIRED_LEAD_FIELDS]);
    expect(pairs).to.deep.include(['ssn', '123456789']);
  });

  it('does not depend on key order or unknown fields', () => {
    const reversed = Object.fromEntries(Object.entries(COMPLETE_LEAD).reverse()) as unknown as Lead;
    const withExtra = { ...COMPLETE_LEAD, referrer: 'somewhere' } as unknown as Lead;
    expect(fingerprint(reversed)).to.equal(fingerprint(COMPLETE_LEAD));
    expect(fingerprint(withExtra)).to.equal(fingerprint(COMPLETE_LEAD));
  });

  it('is equal for the same values written differently', () => {
    const sameValues = {
      ...COMPLETE_LEAD,
      ssn: '123456789',
      price: '12.50',
      state: 'IL',
      email: 'Jane.Doe@example.com',
      firstName: 'Jane',
    };
    expect(fingerprint(sameValues)).to.equal(fingerprint(COMPLETE_LEAD));
  });

  it('is equal for a live lead whether its testMode is "0" or absent, and differs for a test lead', () => {
    expect(fingerprint({ ...REQUIRED_ONLY, testMode: '0' })).to.equal(fingerprint(REQUIRED_ONLY));
    expect(fingerprint({ ...REQUIRED_ONLY, testMode: '1' })).not.to.equal(fingerprint(REQUIRED_ONLY));
  });

  it('is equal for one IPv6 address however written, and for tPar pairs however encoded and ordered', () => {
    const base = { ...REQUIRED_ONLY, userIp: '2001:db8::1', tPar: 'tPar[sub]=a b&tPar[affiliate]=x' };
    expect(fingerprint({ ...base, userIp: '2001:0DB8:0:0:0:0:0:0001' })).to.equal(fingerprint(base));
    expect(fingerprint({ ...base, tPar: 'tPar%5Baffiliate%5D=x&tPar[sub]=a+b&' })).to.equal(fingerprint(base));
    expect(fingerprint({ ...REQUIRED_ONLY, tPar: '&' })).to.equal(fingerprint(REQUIRED_ONLY));
    expect(fingerprint({ ...base, userIp: '2001:db8::2' })).not.to.equal(fingerprint(base));
    expect(fingerprint({ ...base, tPar: 'tPar[sub]=a b&tPar[affiliate]=y' })).not.to.equal(fingerprint(base));
    expect(fingerprint({ ...base, tPar: 'tPar[sub]=a b' })).not.to.equal(fingerprint(base));
  });

  it('differs when a value differs, or an optional field is added', () => {
    const base = fingerprint(COMPLETE_LEAD);
    expect(fingerprint({ ...COMPLETE_LEAD, loanAmount: '1501' })).not.to.equal(base);
    expect(fingerprint({ ...COMPLETE_LEAD, email: 'jane.doe@example.com' })).not.to.equal(base);
    expect(fingerprint(REQUIRED_ONLY)).not.to.equal(fingerprint({ ...REQUIRED_ONLY, incomeType: 'BENEFITS' }));
  });

  it('cannot be confused by values containing separators', () => {
    const a = fingerprint({ ...COMPLETE_LEAD, firstName: 'Ann","lastName', lastName: 'Lee' });
    const b = fingerprint({ ...COMPLETE_LEAD, firstName: 'Ann', lastName: '","lastName Lee' });
    expect(a).not.to.equal(b);
  });
});

describe('earlierFingerprintSource', () => {
  const valid = (lead: Lead) => {
    const result = validateLead(lead, [], NOW);
    if (!result.ok) expect.fail(JSON.stringify(result.errors));
    return result.lead;
  };

  it('is the fields as normalized, testMode "0" kept, for a lead sent with "0"', () => {
    const pairs = JSON.parse(earlierFingerprintSource(valid({ ...REQUIRED_ONLY, testMode: ' 0 ' }))!);
    expect(pairs).to.deep.include(['testMode', '0']);
    expect(pairs.filter(([name]: [string]) => name !== 'testMode')).to.deep.equal(
      JSON.parse(leadFingerprintSource(valid(REQUIRED_ONLY))),
    );
  });

  it('is the fields as normalized for a lead with an IPv6 address or tPar written another way', () => {
    for (const changes of [{ userIp: '2001:DB8:0::1' }, { tPar: 'tPar[b]=1&tPar[a]=2' }]) {
      const lead = valid({ ...REQUIRED_ONLY, ...changes });
      expect(earlierFingerprintSource(lead), JSON.stringify(changes)).to.equal(
        JSON.stringify(LEAD_FIELDS.filter((field) => lead.fields[field] !== '').map((f) => [f, lead.fields[f]])),
      );
    }
  });

  it('is undefined for a lead whose fingerprint did not change', () => {
    for (const testMode of ['', '1']) {
      expect(earlierFingerprintSource(valid({ ...REQUIRED_ONLY, testMode })), testMode).to.equal(undefined);
    }
  });
});

describe('normalizedClickid', () => {
  it('is the clickid the intake stores for what a publisher sent', () => {
    for (const sent of ['sp-1', ' sp-1 ', '\tsp-1\n', `  ${'x'.repeat(128)} `]) {
      const result = validate({ clickid: sent });
      if (!result.ok) expect.fail(JSON.stringify(result.errors));
      expect(normalizedClickid(sent), JSON.stringify(sent)).to.equal(result.lead.fields.clickid);
    }
  });

  it('is undefined for a clickid the intake refuses or counts as missing', () => {
    for (const sent of ['', '   ', 'sp 1', 'clické', 'x'.repeat(129)]) {
      expect(normalizedClickid(sent), JSON.stringify(sent)).to.equal(undefined);
    }
  });
});
