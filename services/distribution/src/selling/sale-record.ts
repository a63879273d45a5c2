import { crashPoint } from '@leadflow/service-kit/crash-points';
import type { Db } from '../db/database.js';
import { type PlannedWrite, plannedWrite, runPlanned } from '../db/statements-together.js';
import { newId } from '../ids.js';
import type { AttemptRecord } from '../leads/attempt-record.js';
import * as repository from '../leads/lead.repository.js';
import type { LeadChange } from '../leads/stored-lead.js';
import { consumeCapacity } from './cap.repository.js';
import { answerUpdate } from './lead-post.repository.js';
import type { SaleWinner } from './lead-seller.js';
import { saleEntries } from './ledger.js';
import { ledgerInsert } from './ledger.repository.js';

export interface RecordedLead {
  id: string;
  publisherId: string;
  test: boolean;
}

/** Thrown inside a record's transaction when the lead is no longer this writer's to record. */
export class LeadNotRecordable extends Error {}

/**
 * The sale of an accepted post, in the transaction `trx`: the buyer's acceptance when the seller left it
 * to the sale, the sale row, its ledger entries, the cap hold consumed and the lead marked sold.
 * Idempotent: a lead already sold (by a record that got there first, a recovery or a resolution), or a
 * post already settled otherwise, makes it throw a duplicate-key error or LeadNotRecordable, and nothing
 * is written twice. A test lead is marked sold with no money moved.
 */
export function recordSale(
  trx: Db,
  lead: RecordedLead,
  winner: SaleWinner,
  attempts: AttemptRecord[],
  processingMs: number | null,
  now: number,
): Promise<void> {
  return runPlanned(trx, saleWrite(trx, lead, winner, attempts, processingMs, now));
}

/** `recordSale` as a write for the group commit. */
export function saleWrite(
  db: Db,
  lead: RecordedLead,
  winner: SaleWinner,
  attempts: AttemptRecord[],
  processingMs: number | null,
  now: number,
): PlannedWrite<void> {
  const live = !lead.test;
  return plannedWrite(
    [
      winner.acceptance && answerUpdate(db, winner.postId, winner.acceptance.answer, now),
      repository.attemptsInsert(db, attempts),
      live
        ? repository.saleInsert(db, {
            id: newId('sale', now),
            leadId: lead.id,
            publisherId: lead.publisherId,
            buyerId: winner.buyerId,
            chargeCents: winner.chargeCents,
            payoutCents: winner.payoutCents,
            marginCents: winner.chargeCents - winner.payoutCents,
            createdAt: now,
          })
        : undefined,
      live ? ledgerInsert(db, saleEntries(lead, winner, now)) : undefined,
      repository.settlementUpdate(db, lead.id, {
        status: 'sold',
        completedAt: now,
        buyerId: winner.buyerId,
        payoutCents: winner.payoutCents,
        redirectUrl: winner.redirectUrl,
        reason: null,
        ...(processingMs === null ? {} : { processingMs }),
      }),
    ],
    async ([answered, , , , sold], trx) => {
      if ((answered && !answered.numAffectedRows) || !sold.numAffectedRows) throw new LeadNotRecordable();
      if (live && winner.mayHoldCapacity) await consumeCapacity(trx, lead.id, winner.buyerId, winner.chargeCents);
      crashPoint('in-record');
    },
  );
}

/**
 * A lead's outcome without a sale (rejected, unconfirmed) or its claim given back for a retry, with its
 * attempts, written only while `claimToken` still holds it.
 */
export function recordUnsold(
  trx: Db,
  leadId: string,
  claimToken: string,
  attempts: AttemptRecord[],
  update: LeadChange,
): Promise<void> {
  return runPlanned(trx, unsoldWrite(trx, leadId, claimToken, attempts, update));
}

/** `recordUnsold` as a write for the group commit. */
export function unsoldWrite(
  db: Db,
  leadId: string,
  claimToken: string,
  attempts: AttemptRecord[],
  update: LeadChange,
): PlannedWrite<void> {
  return plannedWrite(
    [repository.attemptsInsert(db, attempts), repository.completionUpdate(db, leadId, claimToken, update)],
    ([, completed]) => {
      if (!completed.numAffectedRows) throw new LeadNotRecordable();
    },
  );
}
