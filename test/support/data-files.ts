import { randomBytes, randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { validLeadBody } from './leads.js';

/** A lead whose every personal value is unique to it, so that finding one of them in a file can only mean it. */
export function uniqueLead(): { body: Record<string, unknown>; personal: Record<string, string> } {
  const token = randomBytes(6).toString('hex');
  const digits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');
  const personal = {
    ssn: `${randomInt(100, 666)}${randomInt(10, 100)}${randomInt(1000, 10_000)}`,
    firstName: `Zephyrine${token}`,
    lastName: `Quillfeather${token}`,
    email: `z.${token}@mailbox.example`,
    address: `${randomInt(100, 10_000)} Wandering Oak ${token} Rd`,
    homePhone: `${randomInt(2, 10)}${digits(2)}${randomInt(2, 10)}${digits(6)}`,
    cellPhone: `${randomInt(2, 10)}${digits(2)}${randomInt(2, 10)}${digits(6)}`,
    workPhone: `${randomInt(2, 10)}${digits(2)}${randomInt(2, 10)}${digits(6)}`,
    userIp: `2001:db8:${token.slice(0, 4)}:${token.slice(4, 8)}:${token.slice(8)}::17`,
    dob: `19${randomInt(50, 99)}-0${randomInt(1, 10)}-1${randomInt(0, 10)}`,
    bankAba: '021000021',
    bankAccountNumber: digits(14),
    driversLicenseNumber: `DL${token}`,
  };
  return { body: validLeadBody({ ...personal, city: `Quuxville${token}` }), personal };
}

/** Every file of the directory (the database, its WAL and shared memory, secrets), whole. */
export async function dataDirBytes(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) files.set(entry.name, await readFile(path.join(dir, entry.name)));
  }
  return files;
}

/** Which of `values` occur in plain bytes in which file, as "file: field". */
export async function plainOccurrences(dir: string, values: Record<string, string>): Promise<string[]> {
  const found: string[] = [];
  for (const [file, bytes] of await dataDirBytes(dir)) {
    for (const [field, value] of Object.entries(values))
      if (bytes.includes(Buffer.from(value, 'utf8'))) found.push(`${file}: ${field}`);
  }
  return found;
}
