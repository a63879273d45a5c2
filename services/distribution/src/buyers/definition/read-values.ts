import { formatCents, parseAmountCents } from '@leadflow/core/amounts';
import { keyPath, type Problems } from './problems.js';
import { closestName } from './suggest.js';

/** A key left empty in YAML (`caps:`) reads as null: the same as leaving it out. */
export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The own values of an object's known keys. */
export type Fields<K extends string> = { readonly [P in K]?: unknown };

/** "; did you mean ..." when a name is close to an expected one, else the expected names. */
export function expectedNames(name: string, names: readonly string[]): string {
  const closest = closestName(name, names);
  return closest === undefined ? `; expected one of: ${names.join(', ')}` : ` (did you mean "${closest}"?)`;
}

/**
 * The object at `path`, or undefined (reported) when the value is not one. Every key outside `keys` is
 * reported: a misspelt key must not silently mean "not set".
 */
export function readObject<K extends string>(
  value: unknown,
  path: string,
  keys: readonly K[],
  problems: Problems,
  expected = 'an object',
): Fields<K> | undefined {
  if (!isPlainObject(value)) return problems.at(path, `must be ${expected}`);
  const known: Partial<Record<K, unknown>> = {};
  for (const [key, field] of Object.entries(value)) {
    if ((keys as readonly string[]).includes(key)) known[key as K] = field;
    else problems.at(keyPath(path, key), `unknown key${expectedNames(key, keys)}`);
  }
  return known;
}

/** The value read, or `fallback` when the key is absent. */
export function orDefault<T>(value: unknown, fallback: T, read: (value: unknown) => T | undefined): T | undefined {
  return isAbsent(value) ? fallback : read(value);
}

export function required<T>(
  value: unknown,
  path: string,
  problems: Problems,
  read: (value: unknown) => T | undefined,
): T | undefined {
  return isAbsent(value) ? problems.at(path, 'is required') : read(value);
}

/**
 * The one key among `choices` that is set, for objects that are one of several kinds ({bearer} or
 * {basic}); reports more than one, and none unless `needed` is false.
 */
export function oneOf<K extends string>(
  fields: Fields<K>,
  choices: readonly K[],
  path: string,
  problems: Problems,
  needed = true,
): K | undefined {
  const present = choices.filter((key) => fields[key] !== undefined);
  if (present.length > 1) return problems.at(path, `must have only one of: ${choices.join(', ')}`);
  if (present.length === 0 && needed) return problems.at(path, `needs one of: ${choices.join(', ')}`);
  return present[0];
}

export function readText(value: unknown, path: string, problems: Problems): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') return problems.at(path, 'must be a non-empty string');
  return value;
}

export function readWholeNumber(
  value: unknown,
  path: string,
  problems: Problems,
  min: number,
  max: number,
): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return problems.at(path, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

const DURATION_UNITS_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 } as const;
const DURATION = /^([1-9][0-9]*)(d|h|m|s)$/;

/** A duration written as a whole number and a unit, `90s`, `30m`, `4h` or `2d`, from `minMs` to `maxMs`: in ms. */
export function readDuration(
  value: unknown,
  path: string,
  problems: Problems,
  minMs: number,
  maxMs: number,
): number | undefined {
  const match = typeof value === 'string' ? DURATION.exec(value) : null;
  const ms = match ? Number(match[1]) * DURATION_UNITS_MS[match[2] as keyof typeof DURATION_UNITS_MS] : Number.NaN;
  if (!(ms >= minMs && ms <= maxMs)) {
    return problems.at(
      path,
      `must be a duration from ${durationText(minMs)} to ${durationText(maxMs)}: a whole number and s, m, h or d (e.g. 30m, 4h)`,
    );
  }
  return ms;
}

/** A duration in ms as readDuration reads it, in its largest whole unit. */
export function durationText(ms: number): string {
  const unit = (Object.keys(DURATION_UNITS_MS) as (keyof typeof DURATION_UNITS_MS)[]).find(
    (candidate) => ms % DURATION_UNITS_MS[candidate] === 0,
  );
  return unit ? `${ms / DURATION_UNITS_MS[unit]}${unit}` : `${Math.ceil(ms / 1000)}s`;
}

export function readFlag(value: unknown, path: string, problems: Problems): boolean | undefined {
  if (typeof value !== 'boolean') return problems.at(path, 'must be true or false');
  return value;
}

export function readChoice<T extends string>(
  value: unknown,
  path: string,
  choices: readonly T[],
  problems: Problems,
): T | undefined {
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    return problems.at(path, `must be one of: ${choices.join(', ')}`);
  }
  return value as T;
}

/** A list with at least one item; a hole in a sparse array is an undefined item, not skipped. */
export function readList(value: unknown, path: string, problems: Problems): readonly unknown[] | undefined {
  if (!Array.isArray(value)) return problems.at(path, 'must be a list');
  if (value.length === 0) return problems.at(path, 'must list at least one item');
  return Array.from(value);
}

/** An amount in dollars, written "25.00", "25" or 25, as integer cents (no floating point on the way). */
export function readCents(value: unknown, path: string, problems: Problems, minCents = 0): number | undefined {
  // String(25.5) is "25.5"; a number too precise or too large for that ("1e+21") is refused as text would be.
  const text = typeof value === 'number' ? String(value) : value;
  const cents = typeof text === 'string' ? parseAmountCents(text.trim()) : undefined;
  if (cents === undefined)
    return problems.at(path, 'must be an amount in dollars such as "25.00", with at most 2 decimals');
  if (cents === Number.POSITIVE_INFINITY) return problems.at(path, 'is too large');
  if (cents < minCents) return problems.at(path, `must be at least ${formatCents(minCents)}`);
  return cents;
}
