const ABA_WEIGHTS = [3, 7, 1, 3, 7, 1, 3, 7, 1];

/**
 * True for a 9-digit ABA routing number whose check digit is right:
 * 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) is a multiple of 10. All zeros passes the sum but is no bank.
 */
export function isValidAbaRoutingNumber(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || digits === '000000000') return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += ABA_WEIGHTS[i] * Number(digits[i]);
  return sum % 10 === 0;
}
