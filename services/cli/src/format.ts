import { formatCents } from '@leadflow/core/amounts';

/** 1250 -> "$12.50". */
export function dollars(cents: number): string {
  return `$${formatCents(cents)}`;
}

/** A Timestamp as an ISO time; unset as "-". */
export function timestamp(time: Date | undefined): string {
  return time === undefined ? '-' : time.toISOString();
}

/** Left-aligned columns separated by two spaces, one line per row, with a trailing newline. */
export function columns(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]))
      .join('  ')
      .trimEnd();
  return `${rows.map(line).join('\n')}\n`;
}

/** `columns` under a line of headers. */
export function table(headers: string[], rows: string[][]): string {
  return columns([headers, ...rows]);
}

/** "label: value" lines with the values aligned, and a trailing newline. */
export function fields(entries: [string, string][], indent = ''): string {
  const width = Math.max(...entries.map(([label]) => label.length)) + 1;
  return `${entries.map(([label, value]) => `${indent}${`${label}:`.padEnd(width)} ${value}`).join('\n')}\n`;
}
