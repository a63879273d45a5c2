import type { BuyerSummary } from '../../../../proto/generated/leadflow/admin/v1/admin.js';
import type { Db } from '../db/database.js';
import type { Buyer } from './buyer.js';
import { readCounters } from './cap.repository.js';
import { capPeriods } from './cap-periods.js';
import type { CircuitBreakers } from './circuit-breaker.js';
import type { PostFiguresStore } from './post-figures-store.js';

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
    return buyers.map((buyer) => {
      const { definition } = buyer;
      const learned = this.figures.figures(buyer.id);
      const used = (prefix: string) => {
        const period = periods.get(buyer.id)!.find((candidate) => candidate.period.startsWith(prefix));
        return period ? counters.get(`${buyer.id} ${period.period}`) : undefined;
      };
      return {
        id: buyer.id,
        name: definition.name,
        active: definition.active,
        tier: definition.tier,
        priority: definition.priority,
        weight: definition.weight,
        mode: definition.integration.mode,
        pricing: definition.pricing.type,
        postHost: postHost(definition.integration.post.url),
        circuit: this.breakers.state(buyer.id),
        usage: {
          leadsThisHour: used('h:')?.leads ?? 0,
          leadsToday: used('d:')?.leads ?? 0,
          leadsThisMonth: used('m:')?.leads ?? 0,
          spendTodayCents: used('d:')?.spendCents ?? 0,
        },
        updatedAtMs: buyer.updatedAt,
        learned: {
          posts: learned.posts,
          acceptRate: learned.acceptRate,
          unansweredRate: learned.unansweredRate,
          p50Ms: learned.p50Ms ?? 0,
          p90Ms: learned.p90Ms ?? 0,
        },
      };
    });
  }
}
