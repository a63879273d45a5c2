import type { Db } from '../db/database.js';
import { isDuplicateKeyError } from '../db/database.js';
import { ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import { isUspsStateCode } from '../leads/us-states.js';
import { buyerFromRow, type Buyer } from './buyer.js';
import * as repository from './buyer.repository.js';

/** How long the active buyer list is reused between leads: a pause reaches every instance within this. */
export const ACTIVE_BUYERS_TTL_MS = 1000;
const MAX_TIMEOUT_MS = 120_000;

export type BuyerSettings = Omit<Buyer, 'id'>;

function checkUrl(name: string, value: string): void {
  if (value === '') return;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ServiceError('invalid_argument', `${name} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ServiceError('invalid_argument', `${name} must be an http(s) URL`);
  }
}

function checkSettings(settings: BuyerSettings): void {
  const name = settings.name.trim();
  if (name.length === 0 || name.length > 200) throw new ServiceError('invalid_argument', 'name must be 1 to 200 characters');
  if (!Number.isInteger(settings.priceCents) || settings.priceCents < 0) {
    throw new ServiceError('invalid_argument', 'price must be a non-negative number of cents');
  }
  const badState = settings.states.find((state) => !isUspsStateCode(state));
  if (badState !== undefined) throw new ServiceError('invalid_argument', `states: ${badState} is not a USPS state code`);
  if (settings.minLoanAmountCents < 0 || settings.maxLoanAmountCents < 0) {
    throw new ServiceError('invalid_argument', 'loan amount bounds must not be negative');
  }
  if (settings.maxLoanAmountCents > 0 && settings.maxLoanAmountCents < settings.minLoanAmountCents) {
    throw new ServiceError('invalid_argument', 'maximum loan amount is below the minimum');
  }
  if (!Number.isInteger(settings.timeoutMs) || settings.timeoutMs < 1 || settings.timeoutMs > MAX_TIMEOUT_MS) {
    throw new ServiceError('invalid_argument', `timeout must be 1 to ${MAX_TIMEOUT_MS} ms`);
  }
  checkUrl('postUrl', settings.postUrl);
  checkUrl('testPostUrl', settings.testPostUrl);
  checkUrl('redirectUrl', settings.redirectUrl);
}

export class BuyerService {
  private activeCache: { buyers: Buyer[]; expiresAt: number } | undefined;

  constructor(private readonly db: Db) {}

  async listActive(): Promise<Buyer[]> {
    const now = Date.now();
    if (!this.activeCache || this.activeCache.expiresAt <= now) {
      const rows = await repository.listActiveBuyers(this.db);
      this.activeCache = { buyers: rows.map(buyerFromRow), expiresAt: now + ACTIVE_BUYERS_TTL_MS };
    }
    return this.activeCache.buyers;
  }

  async list(): Promise<Buyer[]> {
    return (await repository.listBuyers(this.db)).map(buyerFromRow);
  }

  /** Creates the buyer or replaces the settings of the buyer with that name. */
  async upsert(settings: BuyerSettings): Promise<Buyer> {
    checkSettings(settings);
    const name = settings.name.trim();
    const states = settings.states.map((state) => state.toUpperCase());
    const now = Date.now();
    const columns = {
      name,
      active: settings.active ? 1 : 0,
      priority: settings.priority,
      price_cents: settings.priceCents,
      states: states.join(','),
      min_loan_amount_cents: settings.minLoanAmountCents,
      max_loan_amount_cents: settings.maxLoanAmountCents,
      post_url: settings.postUrl,
      test_post_url: settings.testPostUrl,
      timeout_ms: settings.timeoutMs,
      redirect_url: settings.redirectUrl,
      updated_at: now,
    };
    const existing = await repository.findBuyerByName(this.db, name);
    if (existing) {
      await repository.updateBuyer(this.db, existing.id, columns);
    } else {
      try {
        await repository.insertBuyer(this.db, { ...columns, id: newId('buy', now), created_at: now });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        throw new ServiceError('failed_precondition', 'a buyer with that name was created at the same time: apply again');
      }
    }
    this.activeCache = undefined;
    return buyerFromRow((await repository.findBuyerByName(this.db, name))!);
  }
}
