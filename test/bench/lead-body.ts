import { randomBytes } from 'node:crypto';

const CLICKID_MARK = '@@clickid@@';

function isoDateInDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

/** A complete lead (all 37 fields) that every validation rule accepts, about 930 bytes as JSON. */
function sampleLead(clickid: string): Record<string, string> {
  return {
    price: '10.00',
    loanAmount: '1500',
    ssn: '123456789',
    firstName: 'John',
    lastName: 'Doe',
    email: 'jdoe@example.com',
    dob: '1985-06-15',
    address: '12 Main St',
    city: 'Irvine',
    state: 'CA',
    zip: '90210',
    homePhone: '2125551234',
    cellPhone: '3105552345',
    userIp: '203.0.113.7',
    clickid,
    testMode: '0',
    incomeType: 'EMPLOYMENT',
    incomeNetMonthly: '3500',
    bankAba: '021000021',
    bankAccountNumber: '12345678',
    driversLicenseNumber: 'D1234567',
    driversLicenseState: 'CA',
    incomePaymentFrequency: 'BIWEEKLY',
    incomeNextDate1: isoDateInDays(7),
    incomeNextDate2: isoDateInDays(21),
    bankDirectDeposit: '1',
    bankAccountType: 'CHECKING',
    bankAccountLengthMonths: '36',
    ownHome: '0',
    addressLengthMonths: '48',
    workPhone: '2125559876',
    consentEmailSms: '1',
    userAgent: 'Mozilla/5.0 (Android 14)',
    webSiteUrl: 'https://example.com',
    creditRating: 'GOOD',
    loanPurpose: 'BILLS',
    tPar: 'tPar[affiliate]=a1&tPar[sub]=s1&tPar[transaction]=t1',
  };
}

/**
 * Hands out lead bodies with a clickid never used before, cheaply enough to call once per request:
 * the JSON is serialized once and the clickid spliced in.
 */
export class LeadBodies {
  private readonly head: string;
  private readonly tail: string;
  private count = 0;

  /** runId starts every clickid: a fixed one hands out the same leads in every run. */
  constructor(private readonly runId = randomBytes(3).toString('hex')) {
    [this.head, this.tail] = JSON.stringify(sampleLead(CLICKID_MARK)).split(CLICKID_MARK) as [string, string];
  }

  next(): string {
    this.count += 1;
    return `${this.head}${this.runId}-${this.count}${this.tail}`;
  }
}
