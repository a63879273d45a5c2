import type { StoredLead } from '../leads/stored-lead.js';

/** A claim older than the sell deadline plus this is held by a process that died. */
export const STALE_CLAIM_GRACE_MS = 5000;

/** Whether the process that claimed a lead to sell it must be taken for dead, so another may take over. */
export function isStaleClaim(lead: Pick<StoredLead, 'claimedAt'>, sellDeadlineMs: number, now: number): boolean {
  return lead.claimedAt + sellDeadlineMs + STALE_CLAIM_GRACE_MS < now;
}
