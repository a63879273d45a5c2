import autocannon from 'autocannon';
import { type Answer, type AnswerCounts, type AnswerStatus, AnswerTally } from './answer-tally.js';
import { LeadBodies } from './lead-body.js';
import { ascending, percentile, round } from './stats.js';

export interface LoadTarget {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** Publisher keys the requests are spread over, one after another. */
  keys: string[];
  /** The `status` values an answer may carry; any other answer is an error. */
  expectedStatuses: readonly AnswerStatus[];
  /**
   * Starts every clickid: the same one sends the same leads, in the same order, in every run; the
   * warm-up's have their own, so that every run measures the same leads from the first.
   */
  clickidPrefix?: string;
}

export interface LoadSettings {
  warmupS: number;
  durationS: number;
  connections: number;
  /**
   * Leads per second over all connections, warm-up and measured run alike: an open load (e.g. half the
   * rate that saturates the machine) rather than every connection sending as fast as it is answered.
   */
  overallRate?: number;
}

/** Marks the measured run, e.g. to read the processes' CPU counters around it. */
export interface MeasuredWindow {
  start(): void | Promise<void>;
  stop(): void | Promise<void>;
}

/** Several windows opened and closed together, in order. */
export function windows(...all: MeasuredWindow[]): MeasuredWindow {
  return {
    start: async () => {
      for (const window of all) await window.start();
    },
    stop: async () => {
      for (const window of all) await window.stop();
    },
  };
}

export interface LoadErrors {
  total: number;
  non200: Record<string, number>;
  /** 200 answers without the expected status. */
  unexpected: number;
  /** Connection errors, timeouts included: requests that got no answer. */
  noAnswer: number;
  samples: string[];
}

export interface LoadResult {
  rps: number;
  /** Answers in the measured run, whatever they said. */
  requests: number;
  /** Expected answers (e.g. sold or rejected, not a 503) per second of the measured run. */
  answeredRps: number;
  /** The rate the load was paced at (overallRate); undefined when every connection sent at will. */
  pacedRps: number | undefined;
  p50Ms: number;
  p99Ms: number;
  processingP50Ms: number | undefined;
  processingP99Ms: number | undefined;
  /** The expected answers of the measured run. */
  answers: Answer[];
  /** Over the warm-up and the measured run. */
  errors: LoadErrors;
}

interface Run {
  result: autocannon.Result;
  counts: AnswerCounts;
  answers: Answer[];
}

/** Warms the target up, then measures it; every request posts a lead with a fresh clickid. */
export async function applyLoad(
  target: LoadTarget,
  settings: LoadSettings,
  window?: MeasuredWindow,
): Promise<LoadResult> {
  const prefix = target.clickidPrefix;
  const pacedRps = settings.overallRate && Math.max(1, Math.round(settings.overallRate));
  const warmup = await run(
    target,
    new LeadBodies(prefix && `${prefix}-warmup`),
    settings.connections,
    settings.warmupS,
    pacedRps,
  );
  await window?.start();
  const measured = await run(target, new LeadBodies(prefix), settings.connections, settings.durationS, pacedRps);
  await window?.stop();
  const processing = ascending(measured.answers.map((answer) => answer.processingMs));
  return {
    rps: round(measured.result.requests.average),
    requests: measured.result.requests.total,
    answeredRps: round(measured.answers.length / settings.durationS),
    pacedRps,
    p50Ms: measured.result.latency.p50,
    p99Ms: measured.result.latency.p99,
    processingP50Ms: percentile(processing, 0.5),
    processingP99Ms: percentile(processing, 0.99),
    answers: measured.answers,
    errors: errorsOf([warmup, measured]),
  };
}

function run(
  target: LoadTarget,
  bodies: LeadBodies,
  connections: number,
  durationS: number,
  overallRate?: number,
): Promise<Run> {
  const tally = new AnswerTally(target.expectedStatuses);
  let sent = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.baseUrl,
        connections,
        duration: durationS,
        ...(overallRate ? { overallRate } : {}),
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        requests: [
          {
            setupRequest: (request) => {
              sent += 1;
              request.path = `/api/intake/${target.keys[sent % target.keys.length]}`;
              request.body = bodies.next();
              return request;
            },
            onResponse: (status, body) => tally.record(status, body),
          },
        ],
      },
      (error, result) => {
        if (error) reject(error);
        else resolve({ result, counts: tally.result(), answers: tally.answers });
      },
    );
  });
}

function errorsOf(runs: Run[]): LoadErrors {
  const errors: LoadErrors = { total: 0, non200: {}, unexpected: 0, noAnswer: 0, samples: [] };
  for (const { result, counts } of runs) {
    for (const [code, count] of Object.entries(counts.non200)) {
      errors.non200[code] = (errors.non200[code] ?? 0) + count;
      errors.total += count;
    }
    errors.unexpected += counts.unexpected;
    errors.noAnswer += result.errors;
    errors.total += counts.unexpected + result.errors;
    errors.samples.push(...counts.samples);
  }
  return errors;
}
