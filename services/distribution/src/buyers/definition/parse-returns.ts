import type { ReturnTerms } from './buyer-definition.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { isAbsent, readList, readObject, readWholeNumber, required } from './read-values.js';

const REASON_CODE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function readReasons(value: unknown, path: string, problems: Problems): string[] | undefined {
  const items = readList(value, path, problems);
  if (!items) return undefined;
  const start = problems.found.length;
  const codes: string[] = [];
  items.forEach((item, index) => {
    if (typeof item !== 'string' || !REASON_CODE.test(item)) {
      problems.at(indexPath(path, index), 'must be a reason code: 1 to 64 lowercase letters, digits, "_" or "-"');
    } else if (codes.includes(item)) {
      problems.at(indexPath(path, index), `repeats the reason "${item}"`);
    } else {
      codes.push(item);
    }
  });
  return problems.found.length > start ? undefined : codes;
}

function readMaxRate(value: unknown, path: string, problems: Problems): ReturnTerms['maxRate'] {
  const fields = readObject(value, path, ['percent', 'periodDays'], problems, '{percent: N, periodDays: N}');
  if (!fields) return undefined;
  const at = (key: string): string => keyPath(path, key);
  const percent = required(fields.percent, at('percent'), problems, (v) =>
    readWholeNumber(v, at('percent'), problems, 1, 100),
  );
  const periodDays = required(fields.periodDays, at('periodDays'), problems, (v) =>
    readWholeNumber(v, at('periodDays'), problems, 1, 365),
  );
  if (percent === undefined || periodDays === undefined) return undefined;
  return { percent, periodDays };
}

/**
 * `windowDays` (days after the day of sale, in the buyer's schedule time zone), `reasons` (the codes the
 * buyer may return a lead for) and optionally `maxRate` ({percent, periodDays}: the share of its
 * purchases of the last periodDays it may return).
 */
export function parseReturns(value: unknown, path: string, problems: Problems): ReturnTerms | undefined {
  if (isAbsent(value)) return undefined;
  const fields = readObject(value, path, ['windowDays', 'reasons', 'maxRate'], problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const at = (key: string): string => keyPath(path, key);
  const windowDays = required(fields.windowDays, at('windowDays'), problems, (v) =>
    readWholeNumber(v, at('windowDays'), problems, 0, 365),
  );
  const reasons = required(fields.reasons, at('reasons'), problems, (v) => readReasons(v, at('reasons'), problems));
  const maxRate = isAbsent(fields.maxRate) ? undefined : readMaxRate(fields.maxRate, at('maxRate'), problems);
  if (problems.found.length > start || windowDays === undefined || reasons === undefined) return undefined;
  return { windowDays, reasons, maxRate };
}
