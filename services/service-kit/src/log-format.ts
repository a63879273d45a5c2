import type { DestinationStream } from 'pino';

/** How log lines are written: one JSON object per line (machines), or one readable line (a terminal). */
export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
/** Fields the line's head already shows, or that every line of a process repeats. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'service', 'pid', 'hostname']);

function fieldValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

/**
 * A pino JSON line as a terminal reads it: `15:04:05.123 INFO  leadflow-gateway: request completed method=POST ...`
 * (local time). A line that is not pino's JSON is passed through.
 */
export function prettyLine(jsonLine: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const time =
    typeof entry.time === 'number'
      ? `${new Date(entry.time).toTimeString().slice(0, 8)}.${String(entry.time % 1000).padStart(3, '0')}`
      : '';
  const level = (LEVEL_NAMES[entry.level as number] ?? String(entry.level)).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([name]) => !HEAD_FIELDS.has(name))
    .map(([name, value]) => `${name}=${fieldValue(value)}`);
  const head = `${time} ${level} ${entry.service ?? ''}: ${entry.msg ?? ''}`;
  return `${[head, ...fields].join(' ')}\n`;
}

/** A pino destination that writes each line readably to `out` (stdout by default). */
export function prettyDestination(out: { write(text: string): unknown } = process.stdout): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line)) };
}
