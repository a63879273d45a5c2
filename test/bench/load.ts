import autocannon from 'autocannon';
import { AnswerTally, type AnswerCounts } from './answer-tally.js';
import { LeadBodies } from './lead-body.js';

export interface LoadTarget {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** Publisher keys the requests are spread over, one after another. */
  keys: string[];
  /** The `status` every answer must carry. */
  expectedStatus: 'sold' | 'rejected';
}

export interface LoadSettings {
  warmupS: number;
  durationS: number;
  connections: number;
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
  p50Ms: number;
  p99Ms: number;
  processingP50Ms: number | undefined;
  processingP99Ms: number | undefined;
  /** Over the warm-up and the measured run. */
  errors: LoadErrors;
}

interface Run {
  result: autocannon.Result;
  answers: AnswerCounts;
  processingMs: number[];
}

/** Warms the target up, then measures it; every request posts a lead with a fresh clickid. */
export async function applyLoad(target: LoadTarget, settings: LoadSettings): Promise<LoadResult> {
  const bodies = new LeadBodies();
  const warmup = await run(target, bodies, settings.connections, settings.warmupS);
  const measured = await run(target, bodies, settings.connections, settings.durationS);
  const processing = measured.processingMs.sort((a, b) => a - b);
  return {
    rps: round(measured.result.requests.average),
    p50Ms: measured.result.latency.p50,
    p99Ms: measured.result.latency.p99,
    processingP50Ms: percentile(processing, 0.5),
    processingP99Ms: percentile(processing, 0.99),
    errors: errorsOf([warmup, measured]),
  };
}

function run(target: LoadTarget, bodies: LeadBodies, connections: number, durationS: number): Promise<Run> {
  const tally = new AnswerTally(target.expectedStatus);
  let sent = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: target.baseUrl,
        connections,
        duration: durationS,
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
        else resolve({ result, answers: tally.result(), processingMs: tally.processingMs });
      },
    );
  });
}

function errorsOf(runs: Run[]): LoadErrors {
  const errors: LoadErrors = { total: 0, non200: {}, unexpected: 0, noAnswer: 0, samples: [] };
  for (const { result, answers } of runs) {
    for (const [code, count] of Object.entries(answers.non200)) {
      errors.non200[code] = (errors.non200[code] ?? 0) + count;
      errors.total += count;
    }
    errors.unexpected += answers.unexpected;
    errors.noAnswer += result.errors;
    errors.total += answers.unexpected + result.errors;
    errors.samples.push(...answers.samples);
  }
  return errors;
}

function percentile(sorted: number[], fraction: number): number | undefined {
  if (sorted.length === 0) return undefined;
  return round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
