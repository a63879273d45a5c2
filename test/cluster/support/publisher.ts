import { setTimeout as sleep } from 'node:timers/promises';
import { type IntakeReply, postLead } from './http.js';

/** One lead as a publisher sends it: the same body until a final answer. */
export interface Publication {
  clickid: string;
  body: Record<string, unknown>;
  /** Every answer, in order. */
  replies: IntakeReply[];
  /** The answer that ended the retries (anything but a 5xx or a network failure); undefined if it never came. */
  final: IntakeReply | undefined;
}

export interface RetryPolicy {
  /** Client timeout of one request. */
  requestTimeoutMs: number;
  /** After this long without a final answer the publisher gives up (the test then fails on it). */
  giveUpAfterMs: number;
  firstBackoffMs: number;
  maxBackoffMs: number;
}

function retryable(reply: IntakeReply): boolean {
  return reply.status === 0 || reply.status >= 500;
}

/**
 * A publisher that follows the intake spec: retry a 5xx (or a connection that failed) with
 * exponential backoff, never sooner than Retry-After, with the same clickid and body, until an
 * answer that is final.
 */
export class RetryingPublisher {
  readonly publications: Publication[] = [];

  constructor(
    private readonly baseUrl: () => string,
    private readonly key: string,
    private readonly policy: RetryPolicy,
  ) {}

  async publish(body: Record<string, unknown>): Promise<Publication> {
    const publication: Publication = { clickid: String(body.clickid), body, replies: [], final: undefined };
    this.publications.push(publication);
    const giveUpAt = Date.now() + this.policy.giveUpAfterMs;
    for (let backoff = this.policy.firstBackoffMs; ; backoff = Math.min(backoff * 2, this.policy.maxBackoffMs)) {
      const reply = await postLead(this.baseUrl(), this.key, body, this.policy.requestTimeoutMs);
      publication.replies.push(reply);
      if (!retryable(reply)) {
        publication.final = reply;
        return publication;
      }
      if (Date.now() >= giveUpAt) return publication;
      const retryAfterMs = Number(reply.headers['retry-after'] ?? 0) * 1000;
      await sleep(Math.max(backoff, Number.isFinite(retryAfterMs) ? retryAfterMs : 0));
    }
  }

  /** The final answers by clickid, for auditStore. */
  finalAnswers(): Map<string, IntakeReply> {
    return new Map(
      this.publications
        .filter((publication) => publication.final?.status === 200)
        .map((publication) => [publication.clickid, publication.final!]),
    );
  }
}
