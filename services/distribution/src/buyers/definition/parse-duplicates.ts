import type { DuplicatePolicy } from './buyer-definition.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { orDefault, readChoice, readFlag, readList, readObject, readWholeNumber, required } from './read-values.js';

const MATCHES = ['ssn', 'email', 'phone'] as const;

function readMatch(value: unknown, path: string, problems: Problems): DuplicatePolicy['match'] | undefined {
  const items = readList(value, path, problems);
  if (!items) return undefined;
  const chosen = new Set(items.map((item, index) => readChoice(item, indexPath(path, index), MATCHES, problems)));
  return chosen.has(undefined) ? undefined : MATCHES.filter((match) => chosen.has(match));
}

/** `lookbackDays` (1 to 365), `match` (default ssn, email and phone), `includeRejected` (default false). */
export function parseDuplicates(value: unknown, path: string, problems: Problems): DuplicatePolicy | undefined {
  const fields = readObject(value, path, ['lookbackDays', 'match', 'includeRejected'], problems);
  if (!fields) return undefined;
  const at = (key: string): string => keyPath(path, key);
  const lookbackDays = required(fields.lookbackDays, at('lookbackDays'), problems, (v) =>
    readWholeNumber(v, at('lookbackDays'), problems, 1, 365),
  );
  const match = orDefault(fields.match, [...MATCHES], (v) => readMatch(v, at('match'), problems));
  const includeRejected = orDefault(fields.includeRejected, false, (v) => readFlag(v, at('includeRejected'), problems));
  if (lookbackDays === undefined || match === undefined || includeRejected === undefined) return undefined;
  return { lookbackDays, match, includeRejected };
}
