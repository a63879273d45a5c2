import { withoutPersonalValues } from '@leadflow/distribution/src/buyers/integration/echoed-values';
import { expect } from 'chai';

const FIELDS = {
  ssn: '123456789',
  firstName: 'Joanna',
  lastName: 'Li',
  email: 'joanna.li@mailbox.example',
  dob: '1984-03-07',
  homePhone: '2125550143',
  bankAccountNumber: '000123456789012',
  userIp: '203.0.113.7',
  city: 'Springfield',
  state: 'IL',
};

describe("a buyer's echo of the applicant's personal values", () => {
  it('takes the SSN out whatever separates its digits', () => {
    for (const written of ['123456789', '123-45-6789', '123 45 6789', '123.45.6789']) {
      expect(withoutPersonalValues(`duplicate SSN ${written}, try later`, FIELDS)).to.equal(
        'duplicate SSN [redacted], try later',
      );
    }
  });

  it('takes out phones, bank accounts and addresses written as numbers', () => {
    expect(withoutPersonalValues('phone (212) 555-0143 is disconnected', FIELDS)).to.equal(
      'phone ([redacted] is disconnected',
    );
    expect(withoutPersonalValues('account 000123456789012 closed; from 203.0.113.7', FIELDS)).to.equal(
      'account [redacted] closed; from [redacted]',
    );
  });

  it('takes out a value of mostly digits with letters among them as written, and its digits', () => {
    const fields = { ...FIELDS, firstName: 'Ann9898623e3983', address: '1234567 Rd' };
    expect(withoutPersonalValues('duplicate: ANN9898623E3983 at 1234567 Rd, house 123-4567', fields)).to.equal(
      'duplicate: [redacted] at [redacted], house [redacted]',
    );
  });

  it('takes out whole a value as written whose digits run together, and those of any other value in it', () => {
    const fields = { ...FIELDS, firstName: 'Zephyrinee12345678901', driversLicenseNumber: 'DL12345678901' };
    expect(withoutPersonalValues('duplicate: Zephyrinee12345678901 DL12345678901 1234-5678-901', fields)).to.equal(
      'duplicate: [redacted] [redacted] [redacted]',
    );
  });

  it('takes the date of birth out in ISO and US orders, with or without leading zeros', () => {
    for (const written of ['1984-03-07', '03/07/1984', '3/7/1984', '03-07-1984', '19840307']) {
      expect(withoutPersonalValues(`born ${written}: too young`, FIELDS)).to.equal('born [redacted]: too young');
    }
  });

  it('takes names and the e-mail out whatever their case, as whole words only', () => {
    expect(withoutPersonalValues('JOANNA LI <Joanna.Li@Mailbox.Example> already registered', FIELDS)).to.equal(
      '[redacted] LI <[redacted]> already registered',
    );
    expect(withoutPersonalValues('Joannas are welcome', FIELDS)).to.equal('Joannas are welcome');
  });

  it('leaves what is not personal, and numbers that only contain a personal one', () => {
    const text = 'no lenders in Springfield, IL; ref 91234567890 at 12:00';
    expect(withoutPersonalValues(text, FIELDS)).to.equal(text);
  });

  it('changes nothing for a lead whose personal fields were not sent (a ping)', () => {
    expect(withoutPersonalValues('duplicate SSN 123-45-6789', { state: 'IL', ssn: '' })).to.equal(
      'duplicate SSN 123-45-6789',
    );
  });
});
