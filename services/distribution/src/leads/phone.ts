// The ways people write a US number: "5552345678", "555-234-5678", "(555) 234-5678", "555.234.5678",
// "+1 555 234 5678", "1-555-234-5678".
const PUNCTUATION = /[ ().-]/g;
const DIGITS_AFTER_OPTIONAL_COUNTRY_CODE = /^(?:\+?1)?(\d{10})$/;
const NANP_NUMBER = /^[2-9]\d{2}[2-9]\d{6}$/;

/** The 10 digits of a phone number, else undefined. */
export function phoneDigits(text: string): string | undefined {
  return DIGITS_AFTER_OPTIONAL_COUNTRY_CODE.exec(text.replace(PUNCTUATION, ''))?.[1];
}

/** North American Numbering Plan: neither the area code nor the exchange starts with 0 or 1. */
export function isNorthAmericanNumber(digits: string): boolean {
  return NANP_NUMBER.test(digits);
}
