import type { Tracer } from '@opentelemetry/api';
import type { Lead } from '../../../../proto/generated/leadflow/distribution/v1/distribution.js';
import type { Logger } from '../../../common/logger.js';
import { inSpan } from '../../../common/telemetry.js';
import { consumeCapacity, releaseLeadCapacity } from '../buyers/cap.repository.js';
import type { LeadSeller, SaleDecision } from '../buyers/lead-seller.js';
import { saleEntries } from './ledger.js';
import { isDuplicateKeyError, type Db } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import type { LeadRow } from '../db/schema.js';
import { ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import type { DistributionMetrics } from '../observability/metrics.js';
import type { LiveKey } from '../publishers/publisher.repository.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { KeyedHasher } from '../security/keyed-hash.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import { leadRow, personHashes, type LeadIdentity } from './lead-record.js';
import * as repository from './lead.repository.js';
import { leadFingerprintSource, validateLead, type ValidLead } from './validation.js';

export type IntakeOutcome =
  | { kind: 'sold'; leadId: string; payoutCents: number; buyerId: string; redirectUrl: string }
  | { kind: 'rejected'; leadId: string; reason: string }
  | { kind: 'invalid'; errors: Record<string, string> };

export interface IntakeResult {
  outcome: IntakeOutcome;
  buyerWaitMs: number;
  replayed: boolean;
}

export interface IntakeDependencies {
  db: Db;
  /** Where the lead's writes go: committed together with other leads' writes. */
  writes: GroupCommit;
  publishers: PublisherService;
  seller: LeadSeller;
  cipher: PiiCipher;
  hasher: KeyedHasher;
  /** Overall time budget for selling one lead. */
  sellDeadlineMs: number;
  tracer: Tracer;
  logger: Logger;
  metrics: DistributionMetrics;
}

export const CLICKID_REUSED = 'was already used for a different lead';
/** Time kept back from the caller's deadline to write the outcome. */
const RECORD_MARGIN_MS = 250;
const POLL_INTERVAL_MS = 25;
/** A claim older than the sell deadline plus this is held by a process that died. */
const STALE_CLAIM_GRACE_MS = 5000;

class ClaimLostError extends Error {}

function replay(row: LeadRow): IntakeResult {
  const outcome: IntakeOutcome =
    row.status === 'sold'
      ? { kind: 'sold', leadId: row.id, payoutCents: row.payout_cents ?? 0, buyerId: row.buyer_id ?? '', redirectUrl: row.redirect_url ?? '' }
      : { kind: 'rejected', leadId: row.id, reason: row.reason ?? '' };
  return { outcome, buyerWaitMs: 0, replayed: true };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One lead from key to outcome: authenticate, validate, claim the
 * (publisher, clickid) pair, store, sell, record. A retry of a stored lead gets
 * the stored answer; a retry of a lead still being sold waits for it.
 */
export class IntakeService {
  /** Sales running in this process, by lead id, so that a concurrent retry can wait on them. */
  private readonly inFlight = new Map<string, Promise<IntakeResult>>();

  constructor(private readonly deps: IntakeDependencies) {}

  /** `answerBy`: epoch ms by which the caller needs the answer (Infinity when it set no deadline). */
  async submit(key: string, lead: Lead, nonStringFields: readonly string[], answerBy: number): Promise<IntakeResult> {
    const publisher = await this.deps.publishers.resolveKey(key);
    if (!publisher) throw new ServiceError('unauthenticated', 'invalid webmaster key');
    const validation = await inSpan(this.deps.tracer, 'leadflow.validate', (span) => {
      const result = validateLead(lead, nonStringFields, new Date());
      span.setAttribute('leadflow.valid', result.ok);
      return result;
    });
    if (!validation.ok) {
      const result: IntakeResult = { outcome: { kind: 'invalid', errors: validation.errors }, buyerWaitMs: 0, replayed: false };
      this.deps.metrics.leadAnswered(result, lead.testMode === '1');
      return result;
    }

    const valid = validation.lead;
    const now = Date.now();
    const identity: LeadIdentity = {
      id: newId('lead', now),
      publisherId: publisher.publisherId,
      fingerprint: this.deps.hasher.hash('lead', leadFingerprintSource(valid)),
      claimToken: newId('clm', now),
      now,
      person: personHashes(valid, this.deps.hasher),
    };
    const claimed = await inSpan(this.deps.tracer, 'leadflow.store', async (span) => {
      span.setAttribute('leadflow.lead_id', identity.id);
      try {
        const row = leadRow(valid, identity, this.deps.cipher);
        await this.deps.writes.run((trx) => repository.insertLead(trx, row));
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    });
    const result = claimed
      ? await this.sellOnce(valid, identity, publisher, answerBy)
      : await this.answerRepeat(valid, identity, publisher, answerBy);
    this.deps.metrics.leadAnswered(result, valid.test);
    return result;
  }

  /** A second request for a (publisher, clickid) that is already stored. */
  private async answerRepeat(valid: ValidLead, identity: LeadIdentity, publisher: LiveKey, answerBy: number): Promise<IntakeResult> {
    for (;;) {
      const row = await repository.findLeadByClickid(this.deps.db, publisher.publisherId, valid.fields.clickid);
      if (!row) throw new ServiceError('unavailable', 'lead is being stored: retry');
      if (row.fingerprint !== identity.fingerprint) {
        return { outcome: { kind: 'invalid', errors: { clickid: CLICKID_REUSED } }, buyerWaitMs: 0, replayed: false };
      }
      if (row.status !== 'processing') return replay(row);

      const running = this.inFlight.get(row.id);
      if (running) return { ...(await running), buyerWaitMs: 0, replayed: true };

      const now = Date.now();
      const stale = row.claimed_at + this.deps.sellDeadlineMs + STALE_CLAIM_GRACE_MS < now;
      // A takeover sells with a whole selling budget or not at all: with less, every buyer could be
      // skipped for lack of time and the lead stored as rejected for good. The next retry brings a whole one.
      if (stale && answerBy - now < this.deps.sellDeadlineMs) {
        throw new ServiceError('unavailable', 'lead is being recovered: retry');
      }
      if (stale) {
        const claimToken = newId('clm', now);
        if (await repository.takeOverClaim(this.deps.db, row.id, row.claim_token, claimToken, now)) {
          this.deps.logger.warn({ leadId: row.id }, 'took over a stale lead claim');
          // What the dead owner held of buyers' caps was never sold: give it back.
          await releaseLeadCapacity(this.deps.db, row.id);
          return this.sellOnce(valid, { ...identity, id: row.id, claimToken, now }, publisher, answerBy);
        }
        continue;
      }
      if (now + POLL_INTERVAL_MS >= answerBy) throw new ServiceError('unavailable', 'lead is still being processed: retry');
      await sleep(POLL_INTERVAL_MS);
    }
  }

  private sellOnce(valid: ValidLead, identity: LeadIdentity, publisher: LiveKey, answerBy: number): Promise<IntakeResult> {
    const sale = this.sell(valid, identity, publisher, answerBy).finally(() => this.inFlight.delete(identity.id));
    this.inFlight.set(identity.id, sale);
    return sale;
  }

  private async sell(valid: ValidLead, identity: LeadIdentity, publisher: LiveKey, answerBy: number): Promise<IntakeResult> {
    const started = performance.now();
    const decision = await inSpan(this.deps.tracer, 'leadflow.select', async (span) => {
      const result = await this.deps.seller.sell({
        leadId: identity.id,
        lead: valid,
        publisherId: publisher.publisherId,
        publisherPayoutShareBps: publisher.payoutShareBps,
        person: identity.person,
        deadline: Math.min(identity.now + this.deps.sellDeadlineMs, answerBy - RECORD_MARGIN_MS),
      });
      span.setAttributes({ 'leadflow.buyer_attempts': result.attempts.length, 'leadflow.sold': result.winner !== undefined });
      return result;
    });
    if (!valid.test) this.deps.metrics.buyerAttempts(decision.attempts);
    const processingMs = Math.round((performance.now() - started) * 100) / 100;
    try {
      await inSpan(this.deps.tracer, 'leadflow.record', () => this.record(identity, decision, valid.test, processingMs));
    } catch (error) {
      if (!(error instanceof ClaimLostError) && !isDuplicateKeyError(error)) throw error;
      const row = await repository.findLead(this.deps.db, identity.id);
      if (!row || row.status === 'processing') throw new ServiceError('unavailable', 'lead is still being processed: retry');
      return replay(row);
    }
    const outcome: IntakeOutcome = decision.winner
      ? {
          kind: 'sold',
          leadId: identity.id,
          payoutCents: decision.winner.payoutCents,
          buyerId: decision.winner.buyerId,
          redirectUrl: decision.winner.redirectUrl,
        }
      : { kind: 'rejected', leadId: identity.id, reason: decision.reason };
    return { outcome, buyerWaitMs: decision.buyerWaitMs, replayed: false };
  }

  /** The attempts, the sale, its ledger entries and the lead's outcome in one transaction: all of it or none. */
  private async record(identity: LeadIdentity, decision: SaleDecision, test: boolean, processingMs: number): Promise<void> {
    const completedAt = Date.now();
    await this.deps.writes.run(async (trx) => {
      await repository.insertBuyerAttempts(trx, decision.attempts);
      const { winner } = decision;
      if (winner && !test) {
        await repository.insertSale(trx, {
          id: newId('sale', completedAt),
          lead_id: identity.id,
          publisher_id: identity.publisherId,
          buyer_id: winner.buyerId,
          charge_cents: winner.chargeCents,
          payout_cents: winner.payoutCents,
          margin_cents: winner.chargeCents - winner.payoutCents,
          created_at: completedAt,
        });
        await repository.insertLedgerEntries(trx, saleEntries(identity, winner, completedAt));
        await consumeCapacity(trx, identity.id, winner.buyerId);
      }
      const completed = await repository.completeLead(
        trx,
        identity.id,
        identity.claimToken,
        winner
          ? {
              status: 'sold',
              completed_at: completedAt,
              buyer_id: winner.buyerId,
              payout_cents: winner.payoutCents,
              redirect_url: winner.redirectUrl,
              processing_ms: processingMs,
            }
          : { status: 'rejected', completed_at: completedAt, reason: decision.reason, processing_ms: processingMs },
      );
      if (!completed) throw new ClaimLostError();
    });
  }
}
