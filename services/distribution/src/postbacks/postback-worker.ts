import type { Logger } from '@leadflow/service-kit/logger';
import { sendToBuyer, type TransportResult } from '../buyers/integration/transport.js';
import type { Db } from '../db/database.js';
import { loggedError } from '../errors.js';
import { newId } from '../ids.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import {
  claimEvent,
  findPostback,
  listDueEvents,
  pendingEvents,
  recordTry,
  type StoredEvent,
} from './postback.repository.js';
import { SIGNATURE_HEADER, signatureHeader } from './publisher-event.js';
import { nextAttemptAt } from './retry-schedule.js';

export type PostbackTryOutcome = 'delivered' | 'retry' | 'failed';

export interface PostbackWorkerOptions {
  db: Db;
  cipher: PiiCipher;
  logger: Logger;
  /** How each try ended, and what is left to deliver; DistributionMetrics in the service. */
  metrics: PostbackMetrics;
  /** How often the outbox is swept for due events. */
  intervalMs: number;
  /** For a whole exchange with the publisher's receiver, as a buyer's post timeout. */
  timeoutMs: number;
  /** How long after it was written an event is still retried; then it is given up (marked failed). */
  giveUpAfterMs: number;
}

export interface PostbackMetrics {
  postbackTried(outcome: PostbackTryOutcome): void;
  /** `oldestAgeMs`: how long ago the oldest event not yet delivered was written (0 when none is left). */
  pendingPostbacks(count: number, oldestAgeMs: number): void;
}

/** Events tried at once per sweep; a backlog is worked off over several sweeps. */
const BATCH = 20;
/** A claimed event is another instance's to take over once the try has had this long beyond its timeout. */
const LEASE_MARGIN_MS = 30_000;
/** A receiver's answer is read only for its status: a little of it is enough. */
const MAX_REPLY_BYTES = 4 * 1024;

/**
 * Delivers the outbox of publisher events at least once, on every instance: each event is claimed with a
 * lease (one conditional write, so of several instances one tries it), posted signed, and marked delivered
 * on a 2xx answer, or retried with backoff (a day by default) and then marked failed. An instance that dies
 * mid-try leaves the lease to lapse, and the event is tried again, with the same id.
 */
export class PostbackWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: PostbackWorkerOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((error: unknown) =>
          this.options.logger.warn({ error: loggedError(error) }, 'postback delivery sweep failed'),
        )
        .finally(() => (this.running = undefined));
    }, this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass over the events due now, then the count and age of those still to deliver. */
  async sweep(): Promise<void> {
    const now = Date.now();
    const due = await listDueEvents(this.options.db, now, BATCH);
    await Promise.all(due.map((id) => this.tryOnce(id, now)));
    const { count, oldestCreatedAt } = await pendingEvents(this.options.db);
    this.options.metrics.pendingPostbacks(
      count,
      oldestCreatedAt === undefined ? 0 : Math.max(0, Date.now() - oldestCreatedAt),
    );
  }

  private async tryOnce(id: string, now: number): Promise<void> {
    const { db, timeoutMs } = this.options;
    const leaseToken = newId('lse', now);
    const event = await claimEvent(db, id, leaseToken, now, now + timeoutMs + LEASE_MARGIN_MS);
    if (!event) return;
    const error = await this.deliver(event);
    const at = Date.now();
    const { logger, metrics } = this.options;
    if (error === undefined) {
      metrics.postbackTried('delivered');
      return recordTry(db, id, leaseToken, { state: 'delivered', at });
    }
    const next = nextAttemptAt(event.createdAt, event.attempts, at, this.options.giveUpAfterMs);
    const fields = { eventId: id, publisherId: event.publisherId, attempt: event.attempts, error };
    if (next === undefined) {
      metrics.postbackTried('failed');
      logger.warn(fields, 'gave up a postback after its retries');
      return recordTry(db, id, leaseToken, { state: 'failed', error });
    }
    metrics.postbackTried('retry');
    logger.info(fields, 'postback delivery failed; it will be retried');
    return recordTry(db, id, leaseToken, { state: 'pending', error, nextAttemptAt: next });
  }

  /** Undefined when the receiver answered 2xx, else what went wrong (never the URL: it may carry a token). */
  private async deliver(event: StoredEvent): Promise<string | undefined> {
    const postback = await findPostback(this.options.db, event.publisherId);
    if (!postback || postback.url === '') return 'no postback URL';
    const secret = this.options.cipher.decrypt(postback.signingSecret);
    const result = await sendToBuyer(
      {
        url: postback.url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'leadflow-postbacks/1',
          'leadflow-event-id': event.id,
          [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(Date.now() / 1000), event.body),
        },
        body: event.body,
      },
      { timeoutMs: this.options.timeoutMs, local: postback.local, maxReplyBytes: MAX_REPLY_BYTES },
    );
    return failureOf(result);
  }
}

function failureOf(result: TransportResult): string | undefined {
  switch (result.kind) {
    case 'reply':
      return result.status >= 200 && result.status < 300 ? undefined : `HTTP ${result.status}`;
    case 'timeout':
      return 'timeout';
    case 'failed':
      return result.error;
  }
}
