import type { Logger } from '@leadflow/service-kit/logger';
import type { BuyerService } from '../buyers/buyer.service.js';
import { callBuyer } from '../buyers/integration/buyer-call.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import type { LeadPostResolver } from '../db/schema.js';
import { loggedError, StatusError } from '../errors.js';
import { newId } from '../ids.js';
import * as repository from '../leads/lead.repository.js';
import type { UnconfirmedLead } from '../leads/stored-lead.js';
import { listStaleSales } from './lead-post.repository.js';
import { closeUnretried, recoverSale } from './lead-recovery.js';
import type { LeadResolution } from './lead-resolution.js';
import { STALE_CLAIM_GRACE_MS } from './sale-claim.js';
import { LeadNotRecordable } from './sale-record.js';

export interface ReconcilerDependencies {
  db: Db;
  buyers: BuyerService;
  resolution: LeadResolution;
  sellDeadlineMs: number;
  /** How long after it arrived a lead left without an outcome waits for its publisher's retry. */
  retryWindowMs: number;
  intervalMs: number;
  logger: Logger;
  metrics: UnconfirmedLeadsGauge;
  /** The call to a buyer's status lookup; replaced in tests. */
  call?: typeof callBuyer;
}

/** Where the reconciler reports how many leads are held, and for how long; DistributionMetrics in the service. */
export interface UnconfirmedLeadsGauge {
  /** `oldestAgeMs`: how long ago the longest-held lead was posted (0 when none is held). */
  unconfirmedLeads(count: number, oldestAgeMs: number): void;
}

/** Leads looked at per sweep: a backlog is worked off over several sweeps, never in one long one. */
const BATCH = 50;

/**
 * The background half of the sale protocol, on every instance (each step is a conditional write, so
 * instances never do one twice): leads whose seller died with a post at a buyer are recovered without
 * waiting for the publisher's retry (an accepted post becomes the sale, one without an answer makes the
 * lead unconfirmed); leads left without an outcome that no retry came back for within the retry window
 * are closed as rejected; unconfirmed leads are settled by their buyer's status lookup where it has one, and
 * closed as not sold once their buyer's settleAfter has passed; and the number of unconfirmed leads and
 * the age of the oldest are kept in metrics.
 */
export class Reconciler {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly call: typeof callBuyer;

  constructor(private readonly deps: ReconcilerDependencies) {
    this.call = deps.call ?? callBuyer;
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((error: unknown) => this.deps.logger.warn({ error: loggedError(error) }, 'lead reconciliation failed'))
        .finally(() => (this.running = undefined));
    }, this.deps.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass: stale sales, then unconfirmed leads, then the metrics. */
  async sweep(): Promise<void> {
    await this.recoverStaleSales();
    await this.askBuyers();
    await this.settleOverdue();
    const oldest = await this.deps.resolution.oldestUnconfirmedPostAt();
    this.deps.metrics.unconfirmedLeads(
      await this.deps.resolution.countUnconfirmed(),
      oldest === undefined ? 0 : Math.max(0, Date.now() - oldest),
    );
  }

  /**
   * Leads held past their buyer's settleAfter (the buyer never answered their post, nor its status
   * lookup): closed as not sold, their holds given back, offered to no one else.
   */
  private async settleOverdue(): Promise<void> {
    for (const buyer of await this.deps.buyers.list()) {
      const { settleAfterMs } = buyer.definition.integration;
      if (settleAfterMs === undefined) continue;
      for (const lead of await this.deps.resolution.listHeldSince(buyer.id, Date.now() - settleAfterMs, BATCH)) {
        await this.settle(lead, false, 'settle_after', "settled a held lead by its buyer's settleAfter");
      }
    }
  }

  private async recoverStaleSales(): Promise<void> {
    const now = Date.now();
    // A lead that reached no buyer is left for the publisher's retry, which sells it with a whole budget,
    // for the retry window; past it, it is closed.
    const arrivedBefore = now - this.deps.retryWindowMs;
    const stale = await listStaleSales(
      this.deps.db,
      { claimedBefore: now - this.deps.sellDeadlineMs - STALE_CLAIM_GRACE_MS, arrivedBefore },
      BATCH,
    );
    for (const lead of stale) {
      const claimToken = newId('clm');
      if (!(await repository.takeOverClaim(this.deps.db, lead.id, lead.claimToken, claimToken, Date.now()))) continue;
      try {
        const recovered = await recoverSale(this.deps.db, this.deps.buyers, { ...lead, claimToken }, Date.now());
        if (recovered.kind === 'resell' && lead.createdAt < arrivedBefore) {
          await closeUnretried(this.deps.db, { ...lead, claimToken }, Date.now());
          this.deps.logger.warn({ leadId: lead.id }, 'closed a lead no retry came back for as rejected');
          continue;
        }
        this.deps.logger.warn({ leadId: lead.id, outcome: recovered.kind }, 'recovered a lead whose sale was cut off');
      } catch (error) {
        if (!(error instanceof LeadNotRecordable) && !isDuplicateKeyError(error)) throw error;
      }
    }
  }

  private async askBuyers(): Promise<void> {
    for (const lead of await this.deps.resolution.listUnconfirmed(BATCH)) {
      const verdict = await this.lookUp(lead);
      if (verdict === undefined) continue;
      await this.settle(lead, verdict, 'status_lookup', "resolved an unconfirmed lead by the buyer's status lookup");
    }
  }

  private async settle(lead: UnconfirmedLead, sold: boolean, resolver: LeadPostResolver, done: string): Promise<void> {
    try {
      await this.deps.resolution.resolve(lead.leadId, { sold }, resolver, lead.postId);
      this.deps.logger.info({ leadId: lead.leadId, buyerId: lead.buyerId, sold }, done);
    } catch (error) {
      // Settled meanwhile (by a late answer, an operator or another instance), or a sale that needs a price from an operator.
      this.deps.logger.warn(
        {
          leadId: lead.leadId,
          error: loggedError(error),
          // Our own words (a lead settled meanwhile, a price needed); a driver's message may quote values.
          reason: error instanceof StatusError ? error.message : undefined,
        },
        'could not resolve an unconfirmed lead',
      );
    }
  }

  /** True: the buyer holds the lead; false: it does not; undefined: no lookup, or no clear answer. */
  private async lookUp(lead: UnconfirmedLead): Promise<boolean | undefined> {
    const buyer = await this.deps.buyers.get(lead.buyerId).catch(() => undefined);
    const lookup = buyer?.definition.integration.statusLookup;
    if (!buyer || !lookup) return undefined;
    const result = await this.call(
      lookup,
      // The live API is asked even for a test lead: a lookup carries ids only, and a test answer would be made up.
      { ...buyer.definition.integration, testBehaviour: 'test_url' },
      { leadId: lead.leadId, attemptId: lead.postId, fields: {}, derived: {} },
      { test: false, kind: 'statusLookup' },
    );
    if (result.outcome === 'accepted') return true;
    if (result.outcome === 'rejected') return false;
    return undefined;
  }
}
