import { status } from '@grpc/grpc-js';
import { createMetricsRegistry, LATENCY_BUCKETS_SECONDS } from '@leadflow/service-kit/metrics';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { DiskWaits } from '../db/commit-durability.js';
import type { IntakeResult } from '../intake/intake-outcome.js';
import type { AttemptRecord } from '../leads/attempt-record.js';
import type { PostbackTryOutcome } from '../postbacks/postback-worker.js';
import type { CircuitState } from '../selling/circuit-breaker.js';
import type { LateAnswerOutcome } from '../selling/late-answers.js';
import type { PostFigures } from '../selling/post-figures.js';
import { BuyerNameLabels } from './buyer-labels.js';

/** A WAL fsync takes a fraction of a millisecond on an idle SSD and tens of milliseconds on a busy disk. */
const STORE_SYNC_BUCKETS_SECONDS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1];

const CIRCUIT_LEVEL: Record<CircuitState, number> = { closed: 0, half_open: 1, open: 2 };

/**
 * This service's Prometheus metrics. Labels are bounded sets: outcomes, reasons, gRPC methods and
 * codes, and buyer ids and names (bounded by configuration); never a lead id, clickid, key or lead value.
 */
export class DistributionMetrics {
  readonly registry: Registry = createMetricsRegistry();

  private readonly leads = new Counter({
    name: 'leadflow_leads_total',
    help: 'Leads answered, by outcome (sold, rejected, unconfirmed, invalid; replayed: a retry answered with the stored outcome) and test flag',
    labelNames: ['outcome', 'test'] as const,
    registers: [this.registry],
  });

  private readonly attempts = new Counter({
    name: 'leadflow_buyer_attempts_total',
    help: 'Pings and posts of live leads to buyers, by outcome as the audit trail records it (a post with no answer in time is unknown)',
    labelNames: ['buyer_id', 'buyer_name', 'kind', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly skips = new Counter({
    name: 'leadflow_buyer_skips_total',
    help: 'Buyers considered for a live lead and not called, by reason',
    labelNames: ['buyer_id', 'buyer_name', 'reason'] as const,
    registers: [this.registry],
  });

  private readonly latency = new Histogram({
    name: 'leadflow_buyer_latency_seconds',
    help: 'Time from sending a ping or post of a live lead to a buyer to having its answer (or giving up), in seconds',
    labelNames: ['buyer_id', 'buyer_name', 'kind'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  private readonly capsReached = new Counter({
    name: 'leadflow_caps_reached_total',
    help: 'Leads a buyer could not take because one of its caps (leads or spend per period) was full',
    labelNames: ['buyer_id', 'buyer_name'] as const,
    registers: [this.registry],
  });

  private readonly returns = new Counter({
    name: 'leadflow_lead_returns_total',
    help: "Sold leads returned by their buyers, by buyer and reason code (the codes of the buyer's return terms)",
    labelNames: ['buyer_id', 'buyer_name', 'reason'] as const,
    registers: [this.registry],
  });

  private readonly handled = new Counter({
    name: 'leadflow_grpc_server_handled_total',
    help: 'Unary gRPC calls ended, by method and the status code the caller got (refusals before any handler included; method "unknown" for methods not served)',
    labelNames: ['method', 'code'] as const,
    registers: [this.registry],
  });

  private readonly buyer: BuyerNameLabels;
  private readonly labelsOfAttempts = new Map<string, AttemptLabels>();

  private readonly oldestUnconfirmed = new Gauge({
    name: 'leadflow_unconfirmed_lead_oldest_age_seconds',
    help: 'How long ago the longest-held unconfirmed lead was posted to its buyer, in seconds (0 when none is held), as of the last reconciliation sweep',
    registers: [this.registry],
  });

  private readonly lateAnswers = new Counter({
    name: 'leadflow_late_answers_total',
    help: "Answers of live leads' posts that came after the sale's deadline, by what they did to the held lead (sold, declined; held: nothing by the buyer's timeout; settled_elsewhere: settled first by a status lookup, an operator or another instance)",
    labelNames: ['buyer_id', 'buyer_name', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly lateRevenue = new Counter({
    name: 'leadflow_late_answer_revenue_cents_total',
    help: 'What buyers pay for live leads sold by their late answers, in cents',
    labelNames: ['buyer_id', 'buyer_name'] as const,
    registers: [this.registry],
  });

  private readonly unconfirmed = new Gauge({
    name: 'leadflow_unconfirmed_leads',
    help: "Leads waiting for a buyer's confirmation (a post whose answer never came), as of the last reconciliation sweep",
    registers: [this.registry],
  });

  private readonly auditTrailLosses = new Counter({
    name: 'leadflow_audit_trail_write_failures_total',
    help: "Buyer attempts answered after their sale's record (late bids) that could not be added to the lead's audit trail",
    registers: [this.registry],
  });

  private readonly postbackTries = new Counter({
    name: 'leadflow_postback_tries_total',
    help: 'Tries to deliver a publisher event to its postback URL, by outcome: delivered, retry (it is tried again later) or failed (given up after a day)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly postbacksPending = new Gauge({
    name: 'leadflow_postback_events_pending',
    help: "Publisher events not yet delivered to their postback URL nor given up, as of this process's last delivery sweep",
    registers: [this.registry],
  });

  private readonly oldestPendingPostback = new Gauge({
    name: 'leadflow_postback_oldest_pending_age_seconds',
    help: "How long ago the oldest publisher event not yet delivered nor given up was written, in seconds (0 when none is left), as of this process's last delivery sweep",
    registers: [this.registry],
  });

  /**
   * `circuits`: the circuit state of every buyer this process has called, read at each scrape;
   * `certificateExpiry`: when the gRPC TLS certificate in use expires (epoch ms), undefined without TLS;
   * `learned`: the learned post figures of every buyer with posts, read at each scrape;
   * `learnedPings`: the learned ping answer time (95th percentile, ms) of every buyer with enough answers.
   * `buyerName`: a buyer's name by id, for the buyer_name label.
   */
  constructor(
    circuits: () => Iterable<[string, CircuitState]>,
    certificateExpiry: () => number | undefined = () => undefined,
    learned: () => Iterable<[string, PostFigures]> = () => [],
    learnedPings: () => Iterable<[string, number]> = () => [],
    buyerName: (buyerId: string) => string | undefined = () => undefined,
  ) {
    const buyer = new BuyerNameLabels(buyerName);
    this.buyer = buyer;
    new Gauge({
      name: 'leadflow_buyer_learned_ping_latency_seconds',
      help: "A buyer's learned ping answer time at the 95th percentile, from its recent answered live pings: what the ping window waits for",
      labelNames: ['buyer_id', 'buyer_name', 'quantile'] as const,
      registers: [this.registry],
      collect() {
        // A buyer renamed or gone leaves no stale series behind.
        this.reset();
        for (const [buyerId, p95Ms] of learnedPings())
          this.set({ ...buyer.of(buyerId), quantile: '0.95' }, p95Ms / 1000);
      },
    });
    new Gauge({
      name: 'leadflow_buyer_learned_accept_ratio',
      help: "A buyer's learned post accept rate (of its recent answered live posts, newest weighing most), as post ordering uses it",
      labelNames: ['buyer_id', 'buyer_name'] as const,
      registers: [this.registry],
      collect() {
        // A buyer renamed or gone leaves no stale series behind.
        this.reset();
        for (const [buyerId, figures] of learned()) this.set(buyer.of(buyerId), figures.acceptRate);
      },
    });
    new Gauge({
      name: 'leadflow_buyer_learned_post_latency_seconds',
      help: "A buyer's learned post latency at the median (quantile 0.5) and the 90th percentile (0.9), from its recent live posts",
      labelNames: ['buyer_id', 'buyer_name', 'quantile'] as const,
      registers: [this.registry],
      collect() {
        // A buyer renamed or gone leaves no stale series behind.
        this.reset();
        for (const [buyerId, figures] of learned()) {
          if (figures.p50Ms !== undefined) this.set({ ...buyer.of(buyerId), quantile: '0.5' }, figures.p50Ms / 1000);
          if (figures.p90Ms !== undefined) this.set({ ...buyer.of(buyerId), quantile: '0.9' }, figures.p90Ms / 1000);
        }
      },
    });
    new Gauge({
      name: 'leadflow_buyer_learned_posts',
      help: "Recent live posts a buyer's learned figures come from (at most 200)",
      labelNames: ['buyer_id', 'buyer_name'] as const,
      registers: [this.registry],
      collect() {
        // A buyer renamed or gone leaves no stale series behind.
        this.reset();
        for (const [buyerId, figures] of learned()) this.set(buyer.of(buyerId), figures.posts);
      },
    });
    new Gauge({
      name: 'leadflow_grpc_tls_certificate_expiry_timestamp_seconds',
      help: 'When the certificate this process serves gRPC with expires (Unix time): alert well before it, in case renewal stopped',
      registers: [this.registry],
      collect() {
        const expiry = certificateExpiry();
        if (expiry !== undefined) this.set(Math.floor(expiry / 1000));
      },
    });
    new Gauge({
      name: 'leadflow_circuit_state',
      help: "State of a buyer's circuit breaker in this process: 0 closed, 1 half-open, 2 open",
      labelNames: ['buyer_id', 'buyer_name'] as const,
      registers: [this.registry],
      collect() {
        // A buyer renamed or gone leaves no stale series behind.
        this.reset();
        for (const [buyerId, state] of circuits()) this.set(buyer.of(buyerId), CIRCUIT_LEVEL[state]);
      },
    });
  }

  /** `test`: the lead's test flag; for an invalid lead, as it was sent. */
  leadAnswered(result: IntakeResult, test: boolean): void {
    this.leads.inc({ outcome: result.replayed ? 'replayed' : result.outcome.kind, test: String(test) });
  }

  /**
   * Every ping, post and skip of one live lead's sale. Test leads are left out: they go to test
   * endpoints or get a configured answer without a call, and say nothing of a buyer's live API.
   */
  buyerAttempts(attempts: readonly AttemptRecord[]): void {
    for (const attempt of attempts) {
      const buyer = this.buyer.of(attempt.buyerId);
      if (attempt.kind === 'skip') {
        const reason = attempt.reason ?? 'unknown';
        this.skips.inc({ ...buyer, reason });
        if (reason === 'capped') this.capsReached.inc(buyer);
        continue;
      }
      const labels = this.attemptLabels(buyer, attempt.kind);
      this.attempts.inc(labels.byOutcome(attempt.outcome));
      this.latency.observe(labels.kind, attempt.durationMs / 1000);
    }
  }

  /** A buyer's labels for one kind of call, kept while its name holds: a lead's hundred pings label alike. */
  private attemptLabels(buyer: BuyerLabels, kind: string): AttemptLabels {
    const key = `${buyer.buyer_id} ${kind}`;
    let labels = this.labelsOfAttempts.get(key);
    if (labels?.kind.buyer_name !== buyer.buyer_name) {
      labels = new AttemptLabels({ ...buyer, kind });
      // Bounded by buyers and kinds of call; a renamed buyer's labels are replaced.
      this.labelsOfAttempts.set(key, labels);
    }
    return labels;
  }

  leadReturned(buyerId: string, reason: string): void {
    this.returns.inc({ ...this.buyer.of(buyerId), reason });
  }

  postbackTried(outcome: PostbackTryOutcome): void {
    this.postbackTries.inc({ outcome });
  }

  pendingPostbacks(count: number, oldestAgeMs: number): void {
    this.postbacksPending.set(count);
    this.oldestPendingPostback.set(oldestAgeMs / 1000);
  }

  /** Times each fsync of the embedded store's write-ahead log: the disk's share of a lead's commits. */
  timeStoreSyncs(timeSyncs: (observe: (seconds: number) => void) => void): void {
    const syncs = new Histogram({
      name: 'leadflow_store_sync_seconds',
      help: "Time each fsync of the embedded store's write-ahead log took, in seconds, since the service began serving: what a commit that waits for the disk waits for",
      buckets: STORE_SYNC_BUCKETS_SECONDS,
      registers: [this.registry],
    });
    timeSyncs((seconds) => syncs.observe(seconds));
  }

  /**
   * Counts, at each scrape, how often committers waited for the disk and the fsyncs that served them
   * (the embedded store; on MySQL the server's own log flushes are its business).
   */
  countDiskWaits(read: () => DiskWaits): void {
    const series = (name: string, help: string, value: (waits: DiskWaits) => number) =>
      new Counter({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.reset();
          this.inc(value(read()));
        },
      });
    series(
      'leadflow_store_disk_waits_total',
      "Commits to the embedded store whose committer waited for the disk (a post's intent, a lead's outcome, ...) before going on",
      (waits) => waits.waits,
    );
    series(
      'leadflow_store_syncs_total',
      "fsyncs of the embedded store's write-ahead log: one serves every commit made while the one before ran",
      (waits) => waits.syncs,
    );
  }

  auditTrailWriteFailed(): void {
    this.auditTrailLosses.inc();
  }

  unconfirmedLeads(count: number, oldestAgeMs: number): void {
    this.unconfirmed.set(count);
    this.oldestUnconfirmed.set(oldestAgeMs / 1000);
  }

  lateAnswer(buyerId: string, outcome: LateAnswerOutcome, chargeCents: number): void {
    const buyer = this.buyer.of(buyerId);
    this.lateAnswers.inc({ ...buyer, outcome });
    if (chargeCents > 0) this.lateRevenue.inc(buyer, chargeCents);
  }

  /** `method`: the full method name, e.g. leadflow.distribution.v1.DistributionService/SubmitLead. */
  callHandled(method: string, code: status): void {
    this.handled.inc({ method, code: status[code] ?? String(code) });
  }
}

type BuyerLabels = ReturnType<BuyerNameLabels['of']>;

/** The labels of a buyer's calls of one kind, and of each of their outcomes. */
class AttemptLabels {
  private readonly outcomes = new Map<string, BuyerLabels & { kind: string; outcome: string }>();

  constructor(readonly kind: BuyerLabels & { kind: string }) {}

  byOutcome(outcome: string): BuyerLabels & { kind: string; outcome: string } {
    let labels = this.outcomes.get(outcome);
    if (!labels) {
      labels = { ...this.kind, outcome };
      this.outcomes.set(outcome, labels);
    }
    return labels;
  }
}
