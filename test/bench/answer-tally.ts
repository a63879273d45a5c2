/** What the answers of one load run said: the bench must never silently measure errors. */
export interface AnswerCounts {
  /** Answers with a status code other than 200, by code. */
  non200: Record<string, number>;
  /** 200 answers whose body is not JSON with the expected `status`. */
  unexpected: number;
  /** A few of the wrong answers, to show what went wrong. */
  samples: string[];
}

export type AnswerStatus = 'sold' | 'rejected';

/** One expected answer: which lead, what became of it, and its `processingTime`. */
export interface Answer {
  leadId: string;
  status: AnswerStatus;
  processingMs: number;
  /**
   * Sent before the run's first answer came back: every connection opens and sends at once, so these
   * leads arrived as one burst, which only the start of a run has.
   */
  opening: boolean;
}

const MAX_SAMPLES = 5;

/** Counts every answer and keeps the expected ones that carry a `processingTime`. */
export class AnswerTally {
  readonly answers: Answer[] = [];
  private readonly counts: AnswerCounts = { non200: {}, unexpected: 0, samples: [] };
  private firstAnswerAt: number | undefined;

  constructor(private readonly expectedStatuses: readonly AnswerStatus[]) {}

  record(statusCode: number, body: string): void {
    const now = performance.now();
    this.firstAnswerAt ??= now;
    if (statusCode !== 200) {
      this.counts.non200[statusCode] = (this.counts.non200[statusCode] ?? 0) + 1;
      this.sample(`${statusCode} ${body}`);
      return;
    }
    const answer = parse(body);
    const status = this.expectedStatuses.find((expected) => expected === answer?.status);
    if (!answer || !status) {
      this.counts.unexpected += 1;
      this.sample(`${statusCode} ${body}`);
      return;
    }
    if (typeof answer.processingTime === 'number') {
      // A connection sends its next lead only once it has its answer: a lead was sent in the opening
      // burst when it reached the gateway before any answer was back.
      const opening = now - answer.processingTime < this.firstAnswerAt;
      this.answers.push({ leadId: String(answer.leadId), status, processingMs: answer.processingTime, opening });
    }
  }

  result(): AnswerCounts {
    return this.counts;
  }

  private sample(text: string): void {
    if (this.counts.samples.length < MAX_SAMPLES) this.counts.samples.push(text.slice(0, 500));
  }
}

function parse(body: string): { leadId?: unknown; status?: unknown; processingTime?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
