const SSN = /^(?:\d{9}|\d{3}-\d{2}-\d{4})$/;

/** The 9 digits of an SSN written as 123456789 or 123-45-6789, else undefined. */
export function ssnDigits(text: string): string | undefined {
  return SSN.test(text) ? text.replaceAll('-', '') : undefined;
}

/** False for 9 digits the SSA never issues: area 000, 666 or 900-999, group 00, serial 0000. */
export function isIssuableSsn(digits: string): boolean {
  const area = digits.slice(0, 3);
  const group = digits.slice(3, 5);
  const serial = digits.slice(5);
  return area !== '000' && area !== '666' && !area.startsWith('9') && group !== '00' && serial !== '0000';
}
