import { ApplyBuyersResponse, type DocumentError } from '@leadflow/proto/leadflow/admin/v1/admin';
import type { CommandOutput } from './commands/command.js';
import type { Position } from './document-locations.js';
import { FailedCommand } from './errors.js';
import { messageJson } from './json-output.js';

/** A mistake in a document (the service's, or one found before sending), and where it is when that can be told. */
export interface Mistake {
  error: DocumentError;
  position: Position | undefined;
}

/** "FILE:LINE:COL", as compilers and editors write it; "FILE" when the position is unknown. */
export function fileLocation(name: string, position: Position | undefined): string {
  return position ? `${name}:${position.line}:${position.column}` : name;
}

/** In the file's order; mistakes that cannot be placed last. */
function byPosition(a: Mistake, b: Mistake): number {
  if (!a.position || !b.position) return Number(!a.position) - Number(!b.position);
  return a.position.line - b.position.line || a.position.column - b.position.column;
}

/** One line per mistake, `FILE:LINE:COL: PATH: MESSAGE` (`FILE: PATH: MESSAGE` when the path is not in the file). */
function mistakesText(file: string, mistakes: Mistake[]): string {
  const lines = mistakes
    .toSorted(byPosition)
    .map(
      ({ error, position }) =>
        `${fileLocation(file, position)}: ${error.path ? `${error.path}: ` : ''}${error.message}\n`,
    );
  const count = mistakes.length === 1 ? '1 mistake' : `${mistakes.length} mistakes`;
  return `${lines.join('')}leadflow: ${count} in ${file}; nothing was applied\n`;
}

/**
 * A buyer document refused, whoever found its mistakes: each on a line of stderr, or with --json the
 * apply's answer, nothing applied, `{buyers: [], errors: [{path, message, line, column}]}`, on stdout;
 * exit code 1.
 */
export function mistakesOutput(file: string, mistakes: Mistake[]): CommandOutput {
  const nothingApplied = messageJson(ApplyBuyersResponse, ApplyBuyersResponse.create()) as object;
  return {
    json: { ...nothingApplied, errors: mistakes.map(({ error, position }) => ({ ...error, ...position })) },
    text: mistakesText(file, mistakes),
    failed: true,
  };
}

/** A mistake of the document as a whole (its syntax, its encoding), found before anything is sent. */
export function documentRefused(file: string, message: string, position?: Position): FailedCommand {
  return new FailedCommand(mistakesOutput(file, [{ error: { path: '', message }, position }]));
}
