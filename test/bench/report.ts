import type { LoadErrors } from './load.js';
import type { ScenarioResult } from './scenario.js';

/** The scenarios run on one store (the embedded SQLite or MySQL). */
export interface StoreResults {
  floor: ScenarioResult | undefined;
  full: ScenarioResult | undefined;
}

/** One human-readable line (plus error samples) for a finished scenario. */
export function describeScenario(title: string, { load, rssMb }: ScenarioResult): string {
  const rss = Object.entries(rssMb)
    .map(([name, mb]) => `${name} ${mb} MB`)
    .join(', ');
  const lines = [
    `${title.padEnd(22)} ${String(load.rps).padStart(8)} req/s   p50 ${load.p50Ms} ms   p99 ${load.p99Ms} ms   ` +
      `processingTime p50 ${load.processingP50Ms ?? '-'} ms p99 ${load.processingP99Ms ?? '-'} ms   ` +
      `errors ${load.errors.total}   peak RSS ${rss}`,
  ];
  if (load.errors.total > 0) {
    lines.push(`  errors: ${JSON.stringify(errorFigures(load.errors))}`);
    lines.push(...load.errors.samples.map((sample) => `  e.g. ${sample}`));
  }
  return lines.join('\n');
}

/** The figures of one store for the closing JSON line; a scenario that did not run gives nulls. */
export function storeFigures({ floor, full }: StoreResults): Record<string, unknown> {
  return {
    rps: full?.load.rps ?? null,
    p50_ms: full?.load.p50Ms ?? null,
    p99_ms: full?.load.p99Ms ?? null,
    processing_p50_ms: full?.load.processingP50Ms ?? null,
    processing_p99_ms: full?.load.processingP99Ms ?? null,
    floor_rps: floor?.load.rps ?? null,
    floor_p50_ms: floor?.load.p50Ms ?? null,
    floor_p99_ms: floor?.load.p99Ms ?? null,
    ratio: full && floor ? Math.round((full.load.rps / floor.load.rps) * 1000) / 1000 : null,
    rss_mb: { ...full?.rssMb, ...floor?.rssMb },
    errors: full ? errorFigures(full.load.errors) : null,
    floor_errors: floor ? errorFigures(floor.load.errors) : null,
  };
}

export function errorCount({ floor, full }: StoreResults): number {
  return (floor?.load.errors.total ?? 0) + (full?.load.errors.total ?? 0);
}

function errorFigures(errors: LoadErrors): Record<string, unknown> {
  return {
    total: errors.total,
    non_200: errors.non200,
    unexpected_status: errors.unexpected,
    no_answer: errors.noAnswer,
  };
}
