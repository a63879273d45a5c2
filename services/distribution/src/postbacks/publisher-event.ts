import { createHmac, randomBytes } from 'node:crypto';

/** A lead's outcome after its answer, as its publisher is told of it. */
export type PublisherEventStatus = 'sold' | 'rejected' | 'returned';

/** What changed of one lead; ids and money only, never a personal field. */
export interface LeadChangeEvent {
  publisherId: string;
  leadId: string;
  clickid: string;
  status: PublisherEventStatus;
  /** The publisher's payout for a sale (or what a return claws back); 0 when not sold. */
  payoutCents: number;
  buyerId?: string;
  reason?: string;
  test: boolean;
}

/** The JSON posted to a publisher's postback URL (docs/http-api.md, Postbacks). */
export interface PublisherEventBody {
  id: string;
  type: `lead.${PublisherEventStatus}`;
  time: string;
  leadId: string;
  clickid: string;
  status: PublisherEventStatus;
  /** USD, as the intake answer's price. */
  price: number;
  buyerId?: string;
  reason?: string;
  test: boolean;
}

export function eventBody(id: string, change: LeadChangeEvent, now: number): PublisherEventBody {
  return {
    id,
    type: `lead.${change.status}`,
    time: new Date(now).toISOString(),
    leadId: change.leadId,
    clickid: change.clickid,
    status: change.status,
    price: change.payoutCents / 100,
    ...(change.buyerId ? { buyerId: change.buyerId } : {}),
    ...(change.reason ? { reason: change.reason } : {}),
    test: change.test,
  };
}

const SECRET_PREFIX = 'whsec_';

/** A new signing secret: the prefix and 256 random bits. */
export function generateSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export const SIGNATURE_HEADER = 'leadflow-signature';

/**
 * The signature header of a body sent at `timestampSeconds`, as Stripe signs webhooks: HMAC-SHA256 under the
 * secret over `${timestamp}.${body}`, so a receiver can refuse a replay of an old signed body.
 */
export function signatureHeader(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}
