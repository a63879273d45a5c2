import type { BuyerService } from '../buyers/buyer.service.js';
import { factsByZone } from '../buyers/rules/lead-facts.js';
import { priceFor } from '../buyers/rules/pricing.js';
import type { Db } from '../db/database.js';
import type { AttemptLog } from './attempt-log.js';
import { type Candidate, payoutOf, timezoneOf } from './candidate.js';
import { readCounters } from './cap.repository.js';
import { capPeriods } from './cap-periods.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import { buyersWithDuplicate } from './duplicates.js';
import type { SaleRequest } from './lead-seller.js';
import { type CapUsage, skipReason } from './selection.js';

export interface EligibilityDependencies {
  db: Db;
  buyers: BuyerService;
  breakers: CircuitBreakers;
}

/**
 * The active buyers a lead may go to, each with its facts, cap periods and (for a priced buyer) its
 * price; every other one gets its reason in the log. Duplicate history and caps are read once per lead.
 */
export async function eligibleCandidates(
  deps: EligibilityDependencies,
  request: SaleRequest,
  log: AttemptLog,
): Promise<Candidate[]> {
  const { lead } = request;
  const now = new Date();
  const buyers = await deps.buyers.listActive();
  const duplicates = lead.test
    ? new Set<string>()
    : await buyersWithDuplicate(deps.db, request.leadId, request.person, buyers, now.getTime());
  const periodsOf = new Map(
    buyers.map((buyer) => [buyer.id, capPeriods(buyer.definition.caps, now, timezoneOf(buyer))]),
  );
  const counters: ReadonlyMap<string, CapUsage> = lead.test
    ? new Map()
    : await readCounters(
        deps.db,
        buyers.filter((buyer) => periodsOf.get(buyer.id)!.length > 0).map((buyer) => buyer.id),
        [...new Set([...periodsOf.values()].flat().map((period) => period.period))],
      );

  const factsIn = factsByZone({
    fields: lead.fields,
    ageYears: lead.ageYears,
    loanAmountCents: lead.loanAmountCents,
    incomeNetMonthlyCents: lead.incomeNetMonthlyCents,
    test: lead.test,
    publisherId: request.publisherId,
    now,
  });
  const candidates: Candidate[] = [];
  for (const buyer of buyers) {
    const { definition } = buyer;
    const facts = factsIn(timezoneOf(buyer));
    const periods = periodsOf.get(buyer.id)!;
    const chargeCents = priceFor(definition.pricing, facts, undefined);
    const payoutCents = chargeCents === undefined ? undefined : payoutOf(buyer, request, chargeCents);
    const skip = skipReason(
      {
        buyer,
        facts,
        periods,
        chargeCents,
        payoutCents,
        usage: (period) => counters.get(`${buyer.id} ${period}`),
        posted: request.postedBuyers.has(buyer.id),
        duplicate: duplicates.has(buyer.id),
        circuitOpen: !lead.test && deps.breakers.state(buyer.id) === 'open',
      },
      lead.priceCents,
      now,
    );
    if (skip) log.skip(buyer.id, skip);
    else candidates.push({ buyer, facts, periods, chargeCents, payoutCents });
  }
  return candidates;
}
