import { isSensitiveLeadField } from '@leadflow/core/lead-fields';
import type { LeadRow } from '../db/schema.js';
import { PiiCipher } from './pii-cipher.js';

export type StoredPersonalData = Pick<LeadRow, 'id' | 'fields' | 'sensitive' | 'sensitive_purged_at'>;

/**
 * The plain `fields` JSON without its personal fields, or undefined when it
 * holds none. Leads stored before every personal field was encrypted (or by
 * an instance of that release during a rolling upgrade) carry names,
 * contacts and the IP in plain text there.
 */
export function withoutPersonalFields(fieldsJson: string): string | undefined {
  const fields: Record<string, string> = JSON.parse(fieldsJson);
  const kept = Object.entries(fields).filter(([field]) => !isSensitiveLeadField(field));
  return kept.length === Object.keys(fields).length ? undefined : JSON.stringify(Object.fromEntries(kept));
}

function personalFields(fieldsJson: string): Record<string, string> {
  const fields: Record<string, string> = JSON.parse(fieldsJson);
  return Object.fromEntries(Object.entries(fields).filter(([field]) => isSensitiveLeadField(field)));
}

/**
 * How a stored lead should look with every personal field encrypted under
 * the active key (a purged lead: with none left at all), or undefined when it
 * already does. The plaintext never leaves this function; a ciphertext the
 * ring cannot open throws, naming its key id.
 */
export function sealedForm(
  cipher: PiiCipher,
  lead: StoredPersonalData,
): Pick<LeadRow, 'fields' | 'sensitive'> | undefined {
  const plainFields = withoutPersonalFields(lead.fields);
  if (lead.sensitive_purged_at !== null)
    return plainFields === undefined ? undefined : { fields: plainFields, sensitive: '' };
  if (plainFields === undefined && PiiCipher.keyIdOf(lead.sensitive) === cipher.activeKeyId) return undefined;
  let encrypted: Record<string, string>;
  try {
    encrypted = JSON.parse(cipher.decrypt(lead.sensitive));
  } catch {
    throw new UndecryptableLead(lead);
  }
  return {
    fields: plainFields ?? lead.fields,
    sensitive: cipher.encrypt(JSON.stringify({ ...personalFields(lead.fields), ...encrypted })),
  };
}

export class UndecryptableLead extends Error {
  override name = 'UndecryptableLead';
  readonly keyId: string;
  constructor(readonly lead: StoredPersonalData) {
    const keyId = PiiCipher.keyIdOf(lead.sensitive) ?? '';
    super(`lead ${lead.id} cannot be decrypted (its key id is "${keyId}")`);
    this.keyId = keyId;
  }
}
