import { randomUUID } from 'node:crypto';
import type { Pool } from 'undici';
import { FANOUT_BUYER_TIMEOUT_MS } from './fanout.js';
import { LeadBodies } from './lead-body.js';

/** The fields a ping carries (the simulator integration's ping mapping); amounts as dollar strings. */
const PING_FIELDS = [
  'state',
  'zip',
  'loanAmount',
  'incomeType',
  'incomeNetMonthly',
  'incomePaymentFrequency',
  'bankAccountType',
  'bankDirectDeposit',
  'ownHome',
  'creditRating',
  'loanPurpose',
] as const;
const AMOUNTS = ['loanAmount', 'incomeNetMonthly'] as const;

/** A lender of the tree: its pool (one per simulator) and name. */
export interface BareLender {
  pool: Pool;
  name: string;
}

interface Bid {
  lender: BareLender;
  bid: number;
  pingRef: string;
}

/** What a run of the bare client did. */
export interface BareRun {
  leads: number;
  sold: number;
  /** Calls that failed or timed out. */
  failures: number;
  /** Each lead's time, ms. */
  durations: number[];
}

/**
 * The floor of fan-out: a bare undici client doing what the ping tree does to its buyers and no more.
 * Per lead: the body parsed, a ping to every lender at once (JSON in, JSON out), then posts to the
 * bidders from the highest bid down until one accepts.
 */
export class BareFanoutClient {
  private readonly bodies = new LeadBodies();

  constructor(private readonly lenders: readonly BareLender[]) {}

  /** `concurrency` leads at a time, each sent once the previous one of its lane is done, for durationS. */
  async run(concurrency: number, durationS: number): Promise<BareRun> {
    const result: BareRun = { leads: 0, sold: 0, failures: 0, durations: [] };
    const end = performance.now() + durationS * 1000;
    const lane = async () => {
      while (performance.now() < end) {
        const started = performance.now();
        const sold = await this.sell(result);
        result.leads += 1;
        if (sold) result.sold += 1;
        result.durations.push(performance.now() - started);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, lane));
    return result;
  }

  private async sell(result: BareRun): Promise<boolean> {
    const lead = JSON.parse(this.bodies.next()) as Record<string, string>;
    const leadId = randomUUID();
    const ping: Record<string, string | number> = { leadId };
    for (const field of PING_FIELDS) ping[field] = lead[field]!;
    for (const field of AMOUNTS) ping[field] = Number(lead[field]).toFixed(2);
    ping.age = new Date().getFullYear() - Number(lead.dob!.slice(0, 4));
    const pingBody = JSON.stringify(ping);
    const replies = await Promise.all(this.lenders.map((lender) => this.call(lender, 'ping', pingBody, result)));
    const bids: Bid[] = [];
    replies.forEach((reply, i) => {
      if (reply?.status === 'bid')
        bids.push({ lender: this.lenders[i]!, bid: Number(reply.bid), pingRef: String(reply.pingRef) });
    });
    bids.sort((a, b) => b.bid - a.bid);
    const { price: _floor, ...fields } = lead;
    for (const field of AMOUNTS) fields[field] = Number(lead[field]).toFixed(2);
    for (const { lender, pingRef } of bids) {
      const reply = await this.call(lender, 'post', JSON.stringify({ leadId, ...fields, pingRef }), result);
      if (reply?.status === 'accepted') return true;
    }
    return false;
  }

  private async call(
    lender: BareLender,
    kind: 'ping' | 'post',
    body: string,
    result: BareRun,
  ): Promise<Record<string, unknown> | undefined> {
    try {
      const reply = await lender.pool.request({
        path: `/${lender.name}/${kind}`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        headersTimeout: FANOUT_BUYER_TIMEOUT_MS,
        bodyTimeout: FANOUT_BUYER_TIMEOUT_MS,
      });
      const parsed = (await reply.body.json()) as Record<string, unknown>;
      return reply.statusCode === 200 ? parsed : undefined;
    } catch {
      result.failures += 1;
      return undefined;
    }
  }
}
