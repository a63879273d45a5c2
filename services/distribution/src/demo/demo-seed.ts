import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BuyerService } from '../buyers/buyer.service.js';
import type { PublisherService } from '../publishers/publisher.service.js';

export const DEMO_KEY_FILE = 'demo-key.txt';
export const DEMO_PUBLISHER_NAME = 'Demo publisher';
export const DEMO_BUYER_NAME = 'Demo lender';

/**
 * On the embedded default's first start: a demo publisher (its key written to
 * the data directory, readable by the owner only) and a demo buyer that buys
 * every lead at $20.00, so that a newcomer's first curl gets a sale.
 */
export async function seedDemo(dataDir: string, publishers: PublisherService, buyers: BuyerService): Promise<string | undefined> {
  if ((await publishers.list()).length > 0) return undefined;
  const { key } = await publishers.create({ name: DEMO_PUBLISHER_NAME });
  await buyers.upsert({
    name: DEMO_BUYER_NAME,
    active: true,
    priority: 1,
    priceCents: 2000,
    states: [],
    minLoanAmountCents: 0,
    maxLoanAmountCents: 0,
    postUrl: '',
    testPostUrl: '',
    timeoutMs: 5000,
    redirectUrl: 'https://example.com/welcome',
  });
  await writeFile(path.join(dataDir, DEMO_KEY_FILE), `${key}\n`, { mode: 0o600 });
  return key;
}
