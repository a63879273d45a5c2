import { isUspsStateCode } from '@leadflow/core/us-states';
import { WEEKDAYS } from '@leadflow/core/zoned-time';
import { FILTER_FIELDS, fieldKind, isFilterField } from '../rules/filter-fields.js';
import { compileFilterPattern } from '../rules/filters.js';
import type { FactValue } from '../rules/lead-facts.js';
import { PatternError } from '../rules/linear-pattern.js';
import type { FilterField, FilterRule } from './buyer-definition.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import {
  expectedNames,
  isPlainObject,
  oneOf,
  readCents,
  readFlag,
  readList,
  readObject,
  readText,
} from './read-values.js';

const COMBINATORS = ['all', 'any', 'not'] as const;
const OPERATORS = ['equals', 'in', 'range', 'pattern', 'exists'] as const;
const CONDITION_KEYS = ['field', ...OPERATORS] as const;

// Deeper trees are no real buyer's rules, and the evaluator recurses once per level.
const MAX_DEPTH = 16;

const RULE_SHAPE = 'a rule: {all: [...]}, {any: [...]}, {not: ...} or {field, equals|in|range|pattern|exists}';

function readFilterField(value: unknown, path: string, problems: Problems): FilterField | undefined {
  if (typeof value !== 'string') return problems.at(path, 'must be a field name');
  if (!isFilterField(value))
    return problems.at(path, `is not a lead field or derived value${expectedNames(value, FILTER_FIELDS)}`);
  return value;
}

/** Text compared with a field, checked where the field has a closed set of values so that a typo is caught. */
function readTextValue(value: unknown, path: string, field: FilterField, problems: Problems): string | undefined {
  // An unquoted ZIP code 02134 reaches here as the number 2134.
  if (typeof value === 'number') return problems.at(path, `must be quoted: ${field} is text`);
  const text = readText(value, path, problems);
  if (text === undefined) return undefined;
  if (field === 'state' || field === 'driversLicenseState') {
    return isUspsStateCode(text.toUpperCase())
      ? text.toUpperCase()
      : problems.at(path, 'must be a US state code such as CA');
  }
  if (field === 'dayOfWeek') {
    const day = text.toLowerCase();
    return (WEEKDAYS as readonly string[]).includes(day)
      ? day
      : problems.at(path, `must be one of: ${WEEKDAYS.join(', ')}`);
  }
  return text;
}

function readNumber(value: unknown, path: string, field: FilterField, problems: Problems): number | undefined {
  if (fieldKind(field) === 'dollars') {
    const cents = readCents(value, path, problems);
    return cents === undefined ? undefined : cents / 100;
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) return problems.at(path, 'must be a number');
  if (field === 'hourOfDay' && !(Number.isInteger(value) && value >= 0 && value <= 23)) {
    return problems.at(path, 'must be an hour from 0 to 23');
  }
  return value;
}

/** A value of the field's kind. Without a known field only its being a single value is checked. */
function readComparable(
  value: unknown,
  path: string,
  field: FilterField | undefined,
  problems: Problems,
): FactValue | undefined {
  if (field === undefined) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      problems.at(path, 'must be a single value');
    }
    return undefined;
  }
  switch (fieldKind(field)) {
    case 'text':
      return readTextValue(value, path, field, problems);
    case 'boolean':
      return readFlag(value, path, problems);
    default:
      return readNumber(value, path, field, problems);
  }
}

function readIn(
  value: unknown,
  path: string,
  field: FilterField | undefined,
  problems: Problems,
): (string | number)[] | undefined {
  if (field !== undefined && fieldKind(field) === 'boolean')
    return problems.at(path, `${field} is true or false: use equals`);
  const items = readList(value, path, problems);
  if (!items) return undefined;
  const values = items.map((item, index) => readComparable(item, indexPath(path, index), field, problems));
  return values.every((item): item is string | number => typeof item === 'string' || typeof item === 'number')
    ? values
    : undefined;
}

function readRange(
  value: unknown,
  path: string,
  field: FilterField | undefined,
  problems: Problems,
): { min?: number; max?: number } | undefined {
  if (field !== undefined && fieldKind(field) !== 'number' && fieldKind(field) !== 'dollars') {
    return problems.at(path, `${field} is not a number: use equals, in or pattern`);
  }
  const bounds = readObject(value, path, ['min', 'max'], problems, '{min, max}');
  if (!bounds) return undefined;
  if (bounds.min === undefined && bounds.max === undefined) return problems.at(path, 'needs min, max or both');
  const start = problems.found.length;
  const read = (bound: 'min' | 'max'): number | undefined => {
    const raw = bounds[bound];
    if (raw === undefined) return undefined;
    const at = keyPath(path, bound);
    if (field !== undefined) return readNumber(raw, at, field, problems);
    return typeof raw === 'number' ? raw : problems.at(at, 'must be a number');
  };
  const min = read('min');
  const max = read('max');
  if (problems.found.length > start) return undefined;
  if (min !== undefined && max !== undefined && min > max) return problems.at(path, 'min must not be above max');
  return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
}

function readPattern(
  value: unknown,
  path: string,
  field: FilterField | undefined,
  problems: Problems,
): string | undefined {
  if (field !== undefined && fieldKind(field) !== 'text')
    return problems.at(path, `${field} is not text: use equals, in or range`);
  const pattern = readText(value, path, problems);
  if (pattern === undefined) return undefined;
  try {
    compileFilterPattern(pattern);
    return pattern;
  } catch (error) {
    if (error instanceof PatternError) return problems.at(path, error.message);
    throw error;
  }
}

function parseCondition(value: unknown, path: string, problems: Problems): FilterRule | undefined {
  const fields = readObject(value, path, CONDITION_KEYS, problems, RULE_SHAPE);
  if (!fields) return undefined;
  const field =
    fields.field === undefined
      ? problems.at(keyPath(path, 'field'), 'is required')
      : readFilterField(fields.field, keyPath(path, 'field'), problems);
  const operator = oneOf(fields, OPERATORS, path, problems);
  if (operator === undefined) return undefined;
  const at = keyPath(path, operator);
  const raw = fields[operator];
  switch (operator) {
    case 'exists': {
      const exists = readFlag(raw, at, problems);
      return field === undefined || exists === undefined ? undefined : { field, exists };
    }
    case 'equals': {
      const equals = readComparable(raw, at, field, problems);
      return field === undefined || equals === undefined ? undefined : { field, equals };
    }
    case 'in': {
      const values = readIn(raw, at, field, problems);
      return field === undefined || values === undefined ? undefined : { field, in: values };
    }
    case 'range': {
      const range = readRange(raw, at, field, problems);
      return field === undefined || range === undefined ? undefined : { field, range };
    }
    case 'pattern': {
      const pattern = readPattern(raw, at, field, problems);
      return field === undefined || pattern === undefined ? undefined : { field, pattern };
    }
  }
}

function parseList(value: unknown, path: string, problems: Problems, depth: number): FilterRule[] | undefined {
  const items = readList(value, path, problems);
  if (!items) return undefined;
  const rules = items.map((item, index) => parseFilter(item, indexPath(path, index), problems, depth + 1));
  return rules.every((rule) => rule !== undefined) ? rules : undefined;
}

function parseCombination(
  value: Record<string, unknown>,
  path: string,
  problems: Problems,
  depth: number,
): FilterRule | undefined {
  const fields = readObject(value, path, COMBINATORS, problems);
  if (!fields) return undefined;
  const combinator = oneOf(fields, COMBINATORS, path, problems);
  if (combinator === undefined) return undefined;
  const at = keyPath(path, combinator);
  if (combinator === 'not') {
    const rule = parseFilter(fields.not, at, problems, depth + 1);
    return rule && { not: rule };
  }
  const rules = parseList(fields[combinator], at, problems, depth);
  if (!rules) return undefined;
  return combinator === 'all' ? { all: rules } : { any: rules };
}

/**
 * A filter rule tree. A list stands for `all` of its rules. Values are checked against the field they
 * compare with: amounts in dollars, states as USPS codes, days as mon..sun, patterns compiled.
 */
export function parseFilter(value: unknown, path: string, problems: Problems, depth = 0): FilterRule | undefined {
  if (depth > MAX_DEPTH) return problems.at(path, `nests rules more than ${MAX_DEPTH} levels deep`);
  if (Array.isArray(value)) {
    const rules = parseList(value, path, problems, depth);
    return rules && { all: rules };
  }
  if (isPlainObject(value) && COMBINATORS.some((key) => Object.hasOwn(value, key))) {
    return parseCombination(value, path, problems, depth);
  }
  return parseCondition(value, path, problems);
}
