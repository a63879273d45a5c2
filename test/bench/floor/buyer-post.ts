import type { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { Pool } from 'undici';

const TIMEOUT_MS = 1_000;

/** What the buyer said: its price in cents when it accepted. */
export interface BuyerAnswer {
  accepted: boolean;
  priceCents: number;
}

/**
 * The floor's buyer call: one keep-alive pool to the buyer, the lead's fields as JSON (as a buyer's
 * post carries them, but for the publisher's price floor), the JSON reply read for its status and price.
 */
export class BuyerPost {
  private readonly pool: Pool;
  private readonly path: string;

  constructor(url: string) {
    const { origin, pathname } = new URL(url);
    this.pool = new Pool(origin, { keepAliveTimeout: 4_000 });
    this.path = pathname;
  }

  async send(leadId: string, lead: Lead): Promise<BuyerAnswer> {
    const { price: _floor, ...fields } = lead;
    const { statusCode, body } = await this.pool.request({
      path: this.path,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ leadId, ...fields }),
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const reply = (await body.json()) as { status?: unknown; price?: unknown };
    const accepted = statusCode === 200 && reply.status === 'accepted';
    return { accepted, priceCents: accepted ? Math.round(Number(reply.price) * 100) : 0 };
  }
}
