/** What the answers of one load run said: the bench must never silently measure errors. */
export interface AnswerCounts {
  answers: number;
  /** Answers with a status code outside 2xx, by code. */
  non2xx: Record<string, number>;
  /** 2xx answers whose body is not JSON with the expected `status`. */
  unexpected: number;
  /** A few of the unexpected bodies and non-2xx answers, to show what went wrong. */
  samples: string[];
}

const MAX_SAMPLES = 5;

/** Counts every answer and keeps the `processingTime` of the expected ones. */
export class AnswerTally {
  readonly processingMs: number[] = [];
  private readonly counts: AnswerCounts = { answers: 0, non2xx: {}, unexpected: 0, samples: [] };

  constructor(private readonly expectedStatus: string) {}

  record(statusCode: number, body: string): void {
    this.counts.answers += 1;
    if (statusCode < 200 || statusCode > 299) {
      this.counts.non2xx[statusCode] = (this.counts.non2xx[statusCode] ?? 0) + 1;
      this.sample(`${statusCode} ${body}`);
      return;
    }
    const answer = parse(body);
    if (answer?.status !== this.expectedStatus) {
      this.counts.unexpected += 1;
      this.sample(`${statusCode} ${body}`);
      return;
    }
    if (typeof answer.processingTime === 'number') this.processingMs.push(answer.processingTime);
  }

  result(): AnswerCounts {
    return this.counts;
  }

  private sample(text: string): void {
    if (this.counts.samples.length < MAX_SAMPLES) this.counts.samples.push(text.slice(0, 500));
  }
}

function parse(body: string): { status?: unknown; processingTime?: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
