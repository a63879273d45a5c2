import { randomBytes } from 'node:crypto';
import type { Db } from '@leadflow/distribution/src/db/database';
import { expect } from 'chai';
import type { TestDistribution } from './distribution.js';
import { validLeadBody } from './leads.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A lead of person `n`: its own SSN, e-mail, cell phone, bank account and
 * license number. `sensitive` is every personal field as stored (normalized).
 */
export function personLead(n: number): { body: Record<string, unknown>; sensitive: Record<string, string> } {
  const serial = String(1000 + n);
  const sensitive = {
    ssn: `12345${serial}`,
    dob: '1986-04-12',
    bankAba: '021000021',
    bankAccountNumber: `7700${serial}`,
    driversLicenseNumber: `D${serial}`,
    firstName: 'Maria',
    lastName: 'Garcia',
    email: `person.${n}@example.com`,
    address: '1200 Market St',
    homePhone: '4155550123',
    cellPhone: `415555${serial}`,
    userIp: '203.0.113.7',
  };
  const body = validLeadBody({ ...sensitive, ssn: `123-45-${serial}` });
  return { body, sensitive };
}

/** Submits a lead and returns its id, whatever the outcome. */
export async function submitLead(stack: TestDistribution, key: string, body: Record<string, unknown>): Promise<string> {
  const answer = await stack.submit(key, body);
  const outcome = answer.outcome;
  if (outcome?.$case !== 'sold' && outcome?.$case !== 'rejected')
    throw new Error(`unexpected outcome ${JSON.stringify(outcome)}`);
  return outcome.value.leadId;
}

/** Moves leads back in time, as if they had arrived `days` ago. */
export async function age(db: Db, leadIds: string[], days: number): Promise<void> {
  await db
    .updateTable('leads')
    .set({ created_at: Date.now() - days * DAY_MS })
    .where('id', 'in', leadIds)
    .execute();
}

export async function leadRows(db: Db, leadIds: string[]) {
  const rows = await db.selectFrom('leads').selectAll().where('id', 'in', leadIds).orderBy('id').execute();
  expect(rows).to.have.length(leadIds.length);
  return rows;
}

/** `kid:base64` of a fresh 32-byte key. */
export function piiKey(kid: string): string {
  return `${kid}:${randomBytes(32).toString('base64')}`;
}
