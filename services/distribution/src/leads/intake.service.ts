import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { crashPoint } from '@leadflow/service-kit/crash-points';
import type { Logger } from '@leadflow/service-kit/logger';
import { inSpan } from '@leadflow/service-kit/telemetry';
import type { Tracer } from '@opentelemetry/api';
import type { BuyerService } from '../buyers/buyer.service.js';
import { AWAITING_CONFIRMATION, type LeadSeller, type SaleDecision, type SaleWinner } from '../buyers/lead-seller.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import type { GroupCommit } from '../db/group-commit.js';
import { StatusError } from '../errors.js';
import { newId } from '../ids.js';
import type { DistributionMetrics } from '../observability/metrics.js';
import type { LiveKey } from '../publishers/publisher.repository.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { KeyedHasher } from '../security/keyed-hash.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import * as repository from './lead.repository.js';
import { logLeadAnswered, outcomeBuyerId } from './lead-log.js';
import { type LeadIdentity, personHashes, storedLead } from './lead-record.js';
import { recoverSale } from './lead-recovery.js';
import { LeadNotRecordable, recordSale, recordUnsold } from './sale-record.js';
import type { StoredLead } from './stored-lead.js';
import { leadFingerprintSource, type ValidLead, validateLead } from './validation.js';

export type IntakeOutcome =
  | { kind: 'sold'; leadId: string; payoutCents: number; buyerId: string; redirectUrl: string }
  | { kind: 'rejected'; leadId: string; reason: string }
  /** A post's answer never came: the lead is held for that buyer until it is resolved. */
  | { kind: 'unconfirmed'; leadId: string; reason: string }
  /** JSON field name -> message; `clickidReused`: the clickid names an earlier lead with another body. */
  | { kind: 'invalid'; errors: Record<string, string>; clickidReused: boolean };

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
  buyers: BuyerService;
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
/** A retry of a lead another request is still selling: worth retrying soon with the same body. */
const LEAD_IN_PROGRESS = { reason: 'LEAD_IN_PROGRESS', retryDelayMs: 250 };
/** A claim older than the sell deadline plus this is held by a process that died. */
export const STALE_CLAIM_GRACE_MS = 5000;

export function isStaleClaim(lead: Pick<StoredLead, 'claimedAt'>, sellDeadlineMs: number, now: number): boolean {
  return lead.claimedAt + sellDeadlineMs + STALE_CLAIM_GRACE_MS < now;
}

/** The stored answer of a lead that has one. */
export function storedOutcome(lead: StoredLead): IntakeOutcome | undefined {
  switch (lead.status) {
    case 'sold':
      return {
        kind: 'sold',
        leadId: lead.id,
        payoutCents: lead.payoutCents ?? 0,
        buyerId: lead.buyerId ?? '',
        redirectUrl: lead.redirectUrl ?? '',
      };
    case 'rejected':
      return { kind: 'rejected', leadId: lead.id, reason: lead.reason ?? '' };
    case 'unconfirmed':
      return { kind: 'unconfirmed', leadId: lead.id, reason: lead.reason ?? AWAITING_CONFIRMATION };
    case 'processing':
      return undefined;
  }
}

function replay(lead: StoredLead): IntakeResult {
  const outcome = storedOutcome(lead);
  if (!outcome) throw new StatusError('unavailable', 'lead is still being processed: retry', LEAD_IN_PROGRESS);
  return { outcome, buyerWaitMs: 0, replayed: true };
}

function soldOutcome(leadId: string, winner: SaleWinner): IntakeOutcome {
  return {
    kind: 'sold',
    leadId,
    payoutCents: winner.payoutCents,
    buyerId: winner.buyerId,
    redirectUrl: winner.redirectUrl,
  };
}

/** A write's result, or the stored answer when another writer recorded the lead first. */
type WrittenOrReplayed<T> = { value: T } | { replayed: IntakeResult };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One lead from key to outcome: authenticate, validate, claim the
 * (publisher, clickid) pair, store, sell, record. A retry of a stored lead gets
 * the stored answer; a retry of a lead still being sold waits for it; a retry of
 * a lead whose seller died takes it over from what its post intents say.
 */
export class IntakeService {
  /** Sales running in this process, by lead id, so that a concurrent retry can wait on them. */
  private readonly inFlight = new Map<string, Promise<IntakeResult>>();

  constructor(private readonly deps: IntakeDependencies) {}

  /** `answerBy`: epoch ms by which the caller needs the answer (Infinity when it set no deadline). */
  async submit(key: string, lead: Lead, nonStringFields: readonly string[], answerBy: number): Promise<IntakeResult> {
    const arrived = performance.now();
    const publisher = await this.deps.publishers.resolveKey(key);
    if (!publisher)
      throw new StatusError('unauthenticated', 'invalid webmaster key', { reason: 'INVALID_WEBMASTER_KEY' });
    const validation = await inSpan(this.deps.tracer, 'leadflow.validate', (span) => {
      const result = validateLead(lead, nonStringFields, new Date());
      span.setAttribute('leadflow.valid', result.ok);
      return result;
    });
    if (!validation.ok) {
      const result: IntakeResult = {
        outcome: { kind: 'invalid', errors: validation.errors, clickidReused: false },
        buyerWaitMs: 0,
        replayed: false,
      };
      return this.answered(result, publisher.publisherId, lead.testMode === '1', arrived);
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
        const stored = storedLead(valid, identity, this.deps.cipher);
        // Not waited on to reach the disk: nothing but pings leaves on the strength of this row alone. A
        // post waits for its intent's fsync and an answer for its outcome's, and those cover this commit.
        await this.deps.writes.run((trx) => repository.insertLead(trx, stored), { waitForDisk: false });
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    });
    const result = claimed
      ? await this.sellOnce(valid, identity, publisher, answerBy, new Set())
      : await this.answerRepeat(valid, identity, publisher, answerBy);
    return this.answered(result, publisher.publisherId, valid.test, arrived);
  }

  /** Counts and logs a lead's answer, once per SubmitLead call that gets one. */
  private async answered(
    result: IntakeResult,
    publisherId: string,
    test: boolean,
    arrived: number,
  ): Promise<IntakeResult> {
    this.deps.metrics.leadAnswered(result, test);
    const buyerId = outcomeBuyerId(result);
    const buyerName = buyerId ? await this.deps.buyers.nameOf(buyerId).catch(() => undefined) : undefined;
    const processingTime = Math.round((performance.now() - arrived) * 100) / 100;
    logLeadAnswered(this.deps.logger, { result, publisherId, test, buyerName, processingTime });
    return result;
  }

  /** A second request for a (publisher, clickid) that is already stored. */
  private async answerRepeat(
    valid: ValidLead,
    identity: LeadIdentity,
    publisher: LiveKey,
    answerBy: number,
  ): Promise<IntakeResult> {
    for (;;) {
      const stored = await repository.findLeadByClickid(this.deps.db, publisher.publisherId, valid.fields.clickid);
      if (!stored) throw new StatusError('unavailable', 'lead is being stored: retry', LEAD_IN_PROGRESS);
      if (stored.fingerprint !== identity.fingerprint) {
        return {
          outcome: { kind: 'invalid', errors: { clickid: CLICKID_REUSED }, clickidReused: true },
          buyerWaitMs: 0,
          replayed: false,
        };
      }
      if (stored.status !== 'processing') return replay(stored);

      const running = this.inFlight.get(stored.id);
      if (running) return { ...(await running), buyerWaitMs: 0, replayed: true };

      const now = Date.now();
      const stale = isStaleClaim(stored, this.deps.sellDeadlineMs, now);
      // A takeover sells with a whole selling budget or not at all: with less, every buyer could be
      // skipped for lack of time. The next retry brings a whole one.
      if (stale && answerBy - now < this.deps.sellDeadlineMs) {
        throw new StatusError('unavailable', 'lead is being recovered: retry', LEAD_IN_PROGRESS);
      }
      if (stale) {
        const claimToken = newId('clm', now);
        if (await repository.takeOverClaim(this.deps.db, stored.id, stored.claimToken, claimToken, now)) {
          this.deps.logger.warn({ leadId: stored.id }, 'took over a stale lead claim');
          return this.takeOver(valid, { ...identity, id: stored.id, claimToken, now }, publisher, answerBy);
        }
        continue;
      }
      if (now + POLL_INTERVAL_MS >= answerBy)
        throw new StatusError('unavailable', 'lead is still being processed: retry', LEAD_IN_PROGRESS);
      await sleep(POLL_INTERVAL_MS);
    }
  }

  /** A lead whose seller stopped: finish what its posts did, or sell it to the buyers it was not posted to. */
  private async takeOver(
    valid: ValidLead,
    identity: LeadIdentity,
    publisher: LiveKey,
    answerBy: number,
  ): Promise<IntakeResult> {
    const recovered = await this.givingBackOnFailure(identity, () =>
      this.recordingOrReplaying(identity.id, () =>
        recoverSale(
          this.deps.db,
          this.deps.buyers,
          { id: identity.id, publisherId: identity.publisherId, test: valid.test, claimToken: identity.claimToken },
          identity.now,
        ),
      ),
    );
    if ('replayed' in recovered) return recovered.replayed;
    switch (recovered.value.kind) {
      case 'sold':
        return { outcome: soldOutcome(identity.id, recovered.value.winner), buyerWaitMs: 0, replayed: true };
      case 'unconfirmed':
        return {
          outcome: { kind: 'unconfirmed', leadId: identity.id, reason: AWAITING_CONFIRMATION },
          buyerWaitMs: 0,
          replayed: true,
        };
      case 'resell':
        return this.sellOnce(valid, identity, publisher, answerBy, recovered.value.postedBuyers);
    }
  }

  private sellOnce(
    valid: ValidLead,
    identity: LeadIdentity,
    publisher: LiveKey,
    answerBy: number,
    postedBuyers: ReadonlySet<string>,
  ): Promise<IntakeResult> {
    const sale = this.sell(valid, identity, publisher, answerBy, postedBuyers).finally(() =>
      this.inFlight.delete(identity.id),
    );
    this.inFlight.set(identity.id, sale);
    return sale;
  }

  private async sell(
    valid: ValidLead,
    identity: LeadIdentity,
    publisher: LiveKey,
    answerBy: number,
    postedBuyers: ReadonlySet<string>,
  ): Promise<IntakeResult> {
    const started = performance.now();
    const ownDeadline = identity.now + this.deps.sellDeadlineMs;
    const callerDeadline = answerBy - RECORD_MARGIN_MS;
    const decision = await this.givingBackOnFailure(identity, () =>
      inSpan(this.deps.tracer, 'leadflow.select', async (span) => {
        const result = await this.deps.seller.sell({
          leadId: identity.id,
          lead: valid,
          publisherId: publisher.publisherId,
          publisherPayoutShareBps: publisher.payoutShareBps,
          person: identity.person,
          claimToken: identity.claimToken,
          postedBuyers,
          deadline: Math.min(ownDeadline, callerDeadline),
          recordBy: Math.min(answerBy, ownDeadline + STALE_CLAIM_GRACE_MS / 2),
        });
        span.setAttributes({
          'leadflow.buyer_attempts': result.attempts.length,
          'leadflow.sold': result.winner !== undefined,
        });
        return result;
      }),
    );
    if (!valid.test) this.deps.metrics.buyerAttempts(decision.attempts);
    if (decision.interrupted) return this.replayOrRetry(identity.id);
    // Buyers left untried because the caller could not wait: nothing final is stored, and a retry with a
    // whole budget sells the lead.
    const cutShortByCaller =
      !decision.winner && !decision.unconfirmed && decision.outOfTime && callerDeadline < ownDeadline;
    const processingMs = Math.round((performance.now() - started) * 100) / 100;
    const recorded = await this.givingBackOnFailure(identity, () =>
      this.recordingOrReplaying(identity.id, () =>
        inSpan(this.deps.tracer, 'leadflow.record', () =>
          this.record(identity, valid.test, decision, cutShortByCaller, processingMs),
        ),
      ),
    );
    if ('replayed' in recorded) return recorded.replayed;
    crashPoint('after-record');
    if (cutShortByCaller)
      throw new StatusError('unavailable', 'not enough time left to sell the lead: retry', {
        reason: 'DEADLINE_TOO_SHORT',
      });
    const outcome: IntakeOutcome = decision.winner
      ? soldOutcome(identity.id, decision.winner)
      : decision.unconfirmed
        ? { kind: 'unconfirmed', leadId: identity.id, reason: AWAITING_CONFIRMATION }
        : { kind: 'rejected', leadId: identity.id, reason: decision.reason };
    return { outcome, buyerWaitMs: decision.buyerWaitMs, replayed: false };
  }

  /**
   * The decision's record: a sale in one transaction with its ledger (it needs only the accepted post,
   * whoever holds the claim); anything else only under this process's claim. A lead the seller could
   * not finish for lack of the caller's time gets its claim back at once, for the next retry.
   */
  private async record(
    identity: LeadIdentity,
    test: boolean,
    decision: SaleDecision,
    release: boolean,
    processingMs: number,
  ): Promise<void> {
    const now = Date.now();
    const { winner } = decision;
    if (winner) {
      const lead = { id: identity.id, publisherId: identity.publisherId, test };
      await this.deps.writes
        .run((trx) => recordSale(trx, lead, winner, decision.attempts, processingMs, now))
        .catch(async (error: unknown) => {
          // The acceptance must outlive the failed record: the lead's retry finishes the sale from it.
          // Should storage refuse that too, the post stays pending, and the lead waits for confirmation.
          await winner.acceptance?.storeAlone().catch(() => undefined);
          throw error;
        });
      return;
    }
    await this.deps.writes.run((trx) => {
      const update = release
        ? { claimedAt: repository.RELEASED_CLAIM_AT }
        : decision.unconfirmed
          ? {
              status: 'unconfirmed' as const,
              completedAt: now,
              reason: AWAITING_CONFIRMATION,
              processingMs,
            }
          : { status: 'rejected' as const, completedAt: now, reason: decision.reason, processingMs };
      return recordUnsold(trx, identity.id, identity.claimToken, decision.attempts, update);
    });
  }

  /**
   * Runs a step of a sale whose failure (storage gone, a write refused) must not cost the lead: what
   * reached buyers is in the post intents, so the claim is given back for the publisher's retry to
   * complete the lead from them at once, never posting it again, and the caller is told to retry.
   */
  private async givingBackOnFailure<T>(identity: LeadIdentity, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (error instanceof StatusError) throw error;
      await repository.releaseClaim(this.deps.db, identity.id, identity.claimToken).catch(() => undefined);
      const { name, code } = (error ?? {}) as { name?: string; code?: unknown };
      this.deps.logger.error(
        { leadId: identity.id, error: { name, code } },
        'a sale step failed; the lead is left for the retry',
      );
      throw new StatusError('unavailable', 'the lead could not be finished yet: retry', LEAD_IN_PROGRESS);
    }
  }

  /**
   * Runs a write that another writer may have beaten (the lead recorded by a recovery, a resolution or a
   * late owner): then the stored answer is replayed instead.
   */
  private async recordingOrReplaying<T>(leadId: string, write: () => Promise<T>): Promise<WrittenOrReplayed<T>> {
    try {
      return { value: await write() };
    } catch (error) {
      if (!(error instanceof LeadNotRecordable) && !isDuplicateKeyError(error)) throw error;
      return { replayed: await this.replayOrRetry(leadId) };
    }
  }

  private async replayOrRetry(leadId: string): Promise<IntakeResult> {
    const stored = await repository.findLead(this.deps.db, leadId);
    if (!stored || stored.status === 'processing')
      throw new StatusError('unavailable', 'lead is still being processed: retry', LEAD_IN_PROGRESS);
    return replay(stored);
  }
}
