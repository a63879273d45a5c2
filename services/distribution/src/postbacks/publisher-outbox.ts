import type { Db } from '../db/database.js';
import { newId } from '../ids.js';
import { findPostback, insertEvent } from './postback.repository.js';
import { eventBody, type LeadChangeEvent } from './publisher-event.js';

/**
 * Puts the event of a lead's change in the outbox, in `trx`: the transaction that makes the change, so the
 * event is written if and only if the change is. Nothing is written for a publisher with no postback URL.
 * The delivery worker (postback-worker.ts) posts it, with the same id on every try.
 */
export async function enqueuePublisherEvent(trx: Db, change: LeadChangeEvent, now: number): Promise<void> {
  const postback = await findPostback(trx, change.publisherId);
  if (!postback || postback.url === '') return;
  const id = newId('evt', now);
  const body = eventBody(id, change, now);
  await insertEvent(
    trx,
    { id, publisherId: change.publisherId, leadId: change.leadId, type: body.type, body: JSON.stringify(body) },
    now,
  );
}
