// USPS codes a US consumer can live under: the 50 states and DC, the five inhabited territories
// (residents are US persons and lenders may serve them), and the three military "states" of APO/FPO
// addresses (service members are a real borrower group). The freely associated states (FM, MH, PW) have
// USPS codes but are not US jurisdictions, so they are not accepted. Buyers narrow this further by
// their own state filters.
const USPS_STATE_CODES: ReadonlySet<string> = new Set([
  'AL',
  'AK',
  'AZ',
  'AR',
  'CA',
  'CO',
  'CT',
  'DE',
  'FL',
  'GA',
  'HI',
  'ID',
  'IL',
  'IN',
  'IA',
  'KS',
  'KY',
  'LA',
  'ME',
  'MD',
  'MA',
  'MI',
  'MN',
  'MS',
  'MO',
  'MT',
  'NE',
  'NV',
  'NH',
  'NJ',
  'NM',
  'NY',
  'NC',
  'ND',
  'OH',
  'OK',
  'OR',
  'PA',
  'RI',
  'SC',
  'SD',
  'TN',
  'TX',
  'UT',
  'VT',
  'VA',
  'WA',
  'WV',
  'WI',
  'WY',
  'DC',
  'PR',
  'VI',
  'GU',
  'AS',
  'MP',
  'AA',
  'AE',
  'AP',
]);

/** True for an upper-case USPS code accepted as a US state. */
export function isUspsStateCode(code: string): boolean {
  return USPS_STATE_CODES.has(code);
}

/** Every accepted code, in the order above. */
export const US_STATE_CODES: readonly string[] = [...USPS_STATE_CODES];
