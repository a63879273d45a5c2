import { leaves } from './body-fields.js';
import type { RequestFields } from './request-body.js';

const SSN_NAMES: ReadonlySet<string> = new Set(['ssn', 'socialsecuritynumber']);
const EMAIL_NAMES: ReadonlySet<string> = new Set(['email', 'emailaddress']);

/** What a lender recognises a returning applicant by: "ssn:123456789", "email:jane@example.com". */
function identityKeys(body: RequestFields): string[] {
  const keys: string[] = [];
  for (const { name, value } of leaves(body)) {
    if (typeof value !== 'string' && typeof value !== 'number') continue;
    const text = String(value);
    if (SSN_NAMES.has(name) && /\d/.test(text)) keys.push(`ssn:${text.replace(/\D/g, '')}`);
    if (EMAIL_NAMES.has(name) && text.trim() !== '') keys.push(`email:${text.trim().toLowerCase()}`);
  }
  return keys;
}

/** The applicants an endpoint has seen in its posts. */
export class SeenApplicants {
  private readonly keys = new Set<string>();

  /** Records the post's applicant; true when any of its keys was seen before. */
  check(body: RequestFields): boolean {
    const keys = identityKeys(body);
    const seen = keys.some((key) => this.keys.has(key));
    for (const key of keys) this.keys.add(key);
    return seen;
  }
}
