import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import type { Logger } from '@leadflow/service-kit/logger';
import { inSpan } from '@leadflow/service-kit/telemetry';
import { isDuplicateKeyError } from '../db/database.js';
import { plannedWrite } from '../db/statements-together.js';
import { StatusError } from '../errors.js';
import { newId } from '../ids.js';
import * as repository from '../leads/lead.repository.js';
import { type LeadIdentity, personHashes, storedLead } from '../leads/lead-record.js';
import { earlierFingerprintSource, leadFingerprintSource, validateLead } from '../leads/validation.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { KeyedHasher } from '../security/keyed-hash.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import { isStaleClaim } from '../selling/sale-claim.js';
import { CLICKID_REUSED, type IntakeResult, LEAD_IN_PROGRESS, replay } from './intake-outcome.js';
import { logLeadAnswered, outcomeBuyerId } from './lead-log.js';
import { type SaleOrder, SaleRunner, type SaleRunnerDependencies } from './sale-runner.js';

export interface IntakeDependencies extends SaleRunnerDependencies {
  publishers: PublisherService;
  cipher: PiiCipher;
  hasher: KeyedHasher;
  logger: Logger;
  metrics: SaleRunnerDependencies['metrics'] & { leadAnswered(result: IntakeResult, test: boolean): void };
}

const POLL_INTERVAL_MS = 25;

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
  private readonly sales: SaleRunner;

  constructor(private readonly deps: IntakeDependencies) {
    this.sales = new SaleRunner(deps);
  }

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
        await this.deps.writes.run(
          plannedWrite([repository.leadInsert(this.deps.db, stored)], () => undefined),
          { waitForDisk: false },
        );
        return true;
      } catch (error) {
        if (isDuplicateKeyError(error)) return false;
        throw error;
      }
    });
    const order: SaleOrder = { valid, identity, publisher, answerBy };
    const result = claimed ? await this.sellOnce(order, new Set()) : await this.answerRepeat(order);
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
    // The name only adorns the log line; the buyer's id is in it whatever happens here.
    const buyerName = buyerId ? await this.deps.buyers.nameOf(buyerId).catch(() => undefined) : undefined;
    const processingTime = Math.round((performance.now() - arrived) * 100) / 100;
    logLeadAnswered(this.deps.logger, { result, publisherId, test, buyerName, processingTime });
    return result;
  }

  /** A second request for a (publisher, clickid) that is already stored. */
  private async answerRepeat(order: SaleOrder): Promise<IntakeResult> {
    const { valid, identity, publisher, answerBy } = order;
    for (;;) {
      const stored = await repository.findLeadByClickid(this.deps.db, publisher.publisherId, valid.fields.clickid);
      if (!stored) throw new StatusError('unavailable', 'lead is being stored: retry', LEAD_IN_PROGRESS);
      if (!this.isSameLead(stored.fingerprint, order)) {
        return {
          outcome: { kind: 'invalid', errors: { clickid: CLICKID_REUSED }, clickidReused: true },
          buyerWaitMs: 0,
          replayed: false,
        };
      }
      if (stored.status !== 'processing') return replay(stored);

      const running = this.inFlight.get(stored.id);
      if (running) {
        // The sale's answer is this request's too; its failure is not: a sale cut short by its own
        // caller's deadline, say, left the lead for a retry, and this request is that retry.
        const answer = await running.catch(() => undefined);
        if (answer) return { ...answer, buyerWaitMs: 0, replayed: true };
        continue;
      }

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
          const takeover = { ...order, identity: { ...identity, id: stored.id, claimToken, now } };
          return this.sales.takeOver(takeover, (postedBuyers) => this.sellOnce(takeover, postedBuyers));
        }
        continue;
      }
      if (now + POLL_INTERVAL_MS >= answerBy)
        throw new StatusError('unavailable', 'lead is still being processed: retry', LEAD_IN_PROGRESS);
      await sleep(POLL_INTERVAL_MS);
    }
  }

  /**
   * Whether the stored lead is this request's: the same fingerprint, or the one the same lead was stored
   * with before spellings of one value compared equal (earlierFingerprintSource).
   */
  private isSameLead(storedFingerprint: string, { valid, identity }: SaleOrder): boolean {
    if (storedFingerprint === identity.fingerprint) return true;
    const earlier = earlierFingerprintSource(valid);
    return earlier !== undefined && storedFingerprint === this.deps.hasher.hash('lead', earlier);
  }

  /** Sells a claimed lead, known to this process while it runs so that a concurrent retry waits on it. */
  private sellOnce(order: SaleOrder, postedBuyers: ReadonlySet<string>): Promise<IntakeResult> {
    const leadId = order.identity.id;
    const sale = this.sales.sell(order, postedBuyers).finally(() => this.inFlight.delete(leadId));
    this.inFlight.set(leadId, sale);
    return sale;
  }
}
