import type { BuyerSummary } from '@leadflow/proto/leadflow/admin/v1/admin';
import { buyerModes, circuitStates, pricings } from '@leadflow/service-kit/admin-enums';
import { durationOfMs } from '@leadflow/service-kit/proto-time';
import type { Buyer } from '../buyers/buyer.js';
import type { Db } from '../db/database.js';
import { salesUsage } from '../selling/buyer-usage.js';
import { readCounters } from '../selling/cap.repository.js';
import { capPeriods } from '../selling/cap-periods.js';
import type { CircuitBreakers } from '../selling/circuit-breaker.js';
import type { PostFiguresStore } from '../selling/post-figures-store.js';

/**
 * The scheme and host, never the path or query (where some buyers want their API key). A URL written with
 * a reference shows its scheme and host as written, or the reference it starts with.
 */
export function postHost(url: string): string {
  if (URL.canParse(url)) {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  }
  return /^[a-z]+:\/\/[^/?#]*/i.exec(url)?.[0] ?? /^\$\{[^}]*\}/.exec(url)?.[0] ?? '';
}

/** What operators see of buyers: their settings at a glance, cap usage, circuit state, learned post figures. */
export class BuyerReports {
  constructor(
    private readonly db: Db,
    private readonly breakers: CircuitBreakers,
    private readonly figures: PostFiguresStore,
  ) {}

  async summaries(buyers: Buyer[]): Promise<BuyerSummary[]> {
    const now = new Date();
    const periods = new Map(
      buyers.map((buyer) => [
        buyer.id,
        capPeriods(buyer.definition.caps, now, buyer.definition.schedule?.timezone ?? 'UTC'),
      ]),
    );
    const counters = await readCounters(
      this.db,
      buyers.map((buyer) => buyer.id),
      [...new Set([...periods.values()].flat().map((period) => period.period))],
    );
    const sales = await Promise.all(
      buyers.map((buyer) => salesUsage(this.db, buyer.id, now, buyer.definition.schedule?.timezone ?? 'UTC')),
    );
    return buyers.map((buyer, index) => {
      const { definition } = buyer;
      const learned = this.figures.figures(buyer.id);
      // A capped period shows its cap counter (sales and the leads held for a buyer's answer, as the cap
      // counts them); any other period the buyer's sales in it.
      const used = (prefix: string, sold: { leads: number; spendCents: number }) => {
        const period = periods.get(buyer.id)!.find((candidate) => candidate.period.startsWith(prefix));
        return period ? (counters.get(`${buyer.id} ${period.period}`) ?? { leads: 0, spendCents: 0 }) : sold;
      };
      const usage = sales[index]!;
      return {
        id: buyer.id,
        name: definition.name,
        active: definition.active,
        tier: definition.tier,
        priority: definition.priority,
        weight: definition.weight,
        mode: buyerModes.valueOf(definition.integration.mode),
        pricing: pricings.valueOf(definition.pricing.type),
        postHost: postHost(definition.integration.post.url),
        circuit: circuitStates.valueOf(this.breakers.state(buyer.id)),
        usage: {
          leadsThisHour: used('h:', { leads: usage.leadsThisHour, spendCents: 0 }).leads,
          leadsToday: used('d:', { leads: usage.leadsToday, spendCents: usage.spendTodayCents }).leads,
          leadsThisMonth: used('m:', { leads: usage.leadsThisMonth, spendCents: 0 }).leads,
          spendTodayCents: used('d:', { leads: usage.leadsToday, spendCents: usage.spendTodayCents }).spendCents,
        },
        updateTime: new Date(buyer.updatedAt),
        learned: {
          posts: learned.posts,
          acceptRate: learned.acceptRate,
          unansweredRate: learned.unansweredRate,
          p50Latency: learned.p50Ms === undefined ? undefined : durationOfMs(learned.p50Ms),
          p90Latency: learned.p90Ms === undefined ? undefined : durationOfMs(learned.p90Ms),
          priorAcceptRate: learned.priorAcceptRate,
          answeredPosts: learned.answeredPosts,
          acceptedPosts: learned.acceptedPosts,
        },
      };
    });
  }
}
