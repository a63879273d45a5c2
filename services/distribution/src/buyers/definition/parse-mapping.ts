import { formTransformOf } from '@leadflow/core/lead-field-rules';
import { leadFieldsWhere, SENSITIVE_LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { PING_WITHHELD_FIELDS } from '../integration/ping-lead.js';
import { elementPathProblems, PLACEHOLDER_NAME } from '../integration/xml-body.js';
import { FILTER_FIELDS, fieldKind, isFilterField } from '../rules/filter-fields.js';
import type { FieldSource, RequestFormat, Transform } from './buyer-definition.js';
import type { BuyerValues } from './buyer-values.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { expectedNames, isPlainObject, oneOf, readChoice, readObject, readText } from './read-values.js';
import { resolveReferences } from './value-references.js';

/**
 * Which call a mapping builds: a ping and a status lookup carry no personal data; only a post after a
 * ping has a ping reference; only posts and status lookups have an attempt id.
 */
export type CallKind = 'ping' | 'post' | 'postAfterPing' | 'statusLookup';

type SourceField = Extract<FieldSource, { field: unknown }>['field'];

const SOURCE_FIELDS: readonly SourceField[] = [...FILTER_FIELDS, 'leadId', 'pingReference', 'attemptId'];

/** Identity, contact and bank details: what a buyer must not learn before it has bought the lead. */
const NOT_IN_A_PING: ReadonlySet<string> = new Set(PING_WITHHELD_FIELDS);

const TEXT_TRANSFORMS = ['digits', 'upper', 'lower', 'trim'] as const;
const TRANSFORM_KINDS = ['date', 'phone', 'money', 'map'] as const;
const TRANSFORM_SHAPE = `one of ${TEXT_TRANSFORMS.join(', ')}, {date}, {phone}, {money} or {map, default}`;

const DATE_FIELDS: ReadonlySet<string> = new Set(leadFieldsWhere((facts) => formTransformOf(facts.rule) === 'date'));
const PHONE_FIELDS: ReadonlySet<string> = new Set(leadFieldsWhere((facts) => formTransformOf(facts.rule) === 'phone'));
const MONEY_FIELDS = FILTER_FIELDS.filter((field) => fieldKind(field) === 'dollars');
const MONEY_FIELD_NAMES = `${MONEY_FIELDS.slice(0, -1).join(', ')} and ${MONEY_FIELDS.at(-1)}`;

function isSourceField(name: string): name is SourceField {
  return isFilterField(name) || name === 'leadId' || name === 'pingReference' || name === 'attemptId';
}

/** What a mapping is read for: its call, how it is sent, and where references are looked up. */
export interface MappingContext {
  call: CallKind;
  /** undefined when the exchange's format is itself a mistake. */
  format: RequestFormat | undefined;
  /** xml or soap with a template: keys are the template's placeholder names. */
  template: boolean;
  values: BuyerValues;
}

/** Never in a URL, where proxies' and servers' access logs keep it. */
const NOT_IN_A_QUERY: ReadonlySet<string> = new Set(SENSITIVE_LEAD_FIELDS);

function readSourceField(
  value: unknown,
  path: string,
  context: MappingContext,
  problems: Problems,
): SourceField | undefined {
  const { call } = context;
  if (typeof value !== 'string') return problems.at(path, 'must be a field name');
  if (!isSourceField(value)) {
    return problems.at(
      path,
      `is not a lead field, derived value, leadId, pingReference or attemptId${expectedNames(value, SOURCE_FIELDS)}`,
    );
  }
  if (call === 'ping' && NOT_IN_A_PING.has(value)) {
    return problems.at(path, `${value} is personal data and is never sent in a ping; map it in the post`);
  }
  if (context.format === 'query' && NOT_IN_A_QUERY.has(value)) {
    return problems.at(path, `${value} is never sent in a URL, where access logs keep it; use POST`);
  }
  if (call === 'statusLookup' && !['leadId', 'attemptId'].includes(value)) {
    return problems.at(path, 'a status lookup carries only leadId and attemptId');
  }
  if (value === 'attemptId' && call === 'ping') {
    return problems.at(path, 'attemptId exists only in a post and a status lookup');
  }
  if (value === 'pingReference' && call !== 'postAfterPing') {
    return problems.at(path, 'pingReference exists only in the post of a ping_post buyer');
  }
  return value;
}

function readStringMap(value: unknown, path: string, problems: Problems): Record<string, string> | undefined {
  if (!isPlainObject(value) || Object.keys(value).length === 0)
    return problems.at(path, 'must be an object of lead value -> value sent');
  const entries = Object.entries(value);
  for (const [key, mapped] of entries)
    if (typeof mapped !== 'string') problems.at(keyPath(path, key), 'must be a string');
  return entries.every((entry): entry is [string, string] => typeof entry[1] === 'string')
    ? Object.fromEntries(entries)
    : undefined;
}

/** A transform, checked against the field it applies to when that field is known. */
function parseTransform(
  value: unknown,
  path: string,
  field: SourceField | undefined,
  problems: Problems,
): Transform | undefined {
  if (typeof value === 'string') {
    const named = TEXT_TRANSFORMS.find((transform) => transform === value);
    return named ?? problems.at(path, `must be ${TRANSFORM_SHAPE}`);
  }
  const fields = readObject(value, path, [...TRANSFORM_KINDS, 'default'], problems, TRANSFORM_SHAPE);
  if (!fields) return undefined;
  const kind = oneOf(fields, TRANSFORM_KINDS, path, problems);
  if (fields.default !== undefined && kind !== 'map') problems.at(keyPath(path, 'default'), 'is used only with map');
  const at = kind === undefined ? path : keyPath(path, kind);
  switch (kind) {
    case 'date': {
      if (field !== undefined && !DATE_FIELDS.has(field))
        return problems.at(at, `applies only to ${[...DATE_FIELDS].join(', ')}`);
      const date = readText(fields.date, at, problems);
      if (date !== undefined && !/YYYY|MM|DD/.test(date))
        return problems.at(at, 'must use the tokens YYYY, MM and DD, such as MM/DD/YYYY');
      return date === undefined ? undefined : { date };
    }
    case 'phone': {
      if (field !== undefined && !PHONE_FIELDS.has(field))
        return problems.at(at, `applies only to ${[...PHONE_FIELDS].join(', ')}`);
      const phone = readText(fields.phone, at, problems);
      if (phone !== undefined && phone.split('X').length !== 11)
        return problems.at(at, 'must hold ten X, one per digit, such as (XXX) XXX-XXXX');
      return phone === undefined ? undefined : { phone };
    }
    case 'money': {
      if (field !== undefined && (!isFilterField(field) || fieldKind(field) !== 'dollars')) {
        return problems.at(at, `applies only to ${MONEY_FIELD_NAMES}`);
      }
      const money = readChoice(fields.money, at, ['number', 'string'] as const, problems);
      return money === undefined ? undefined : { money };
    }
    case 'map': {
      const map = readStringMap(fields.map, at, problems);
      if (fields.default === undefined) return map && { map };
      const fallback =
        typeof fields.default === 'string' ? fields.default : problems.at(keyPath(path, 'default'), 'must be a string');
      return map && fallback !== undefined ? { map, default: fallback } : undefined;
    }
    case undefined:
      return undefined;
  }
}

function parseTransforms(
  value: unknown,
  path: string,
  field: SourceField | undefined,
  problems: Problems,
): Transform[] | undefined {
  const items = Array.isArray(value) ? Array.from(value) : [value];
  const transforms = items.map((item, index) =>
    parseTransform(item, Array.isArray(value) ? indexPath(path, index) : path, field, problems),
  );
  return transforms.every((transform) => transform !== undefined) ? transforms : undefined;
}

/** A text constant may be or hold a reference (an API key sent in the body): it must resolve. */
function readConstant(
  value: unknown,
  path: string,
  values: BuyerValues,
  problems: Problems,
): string | number | boolean | undefined {
  if (typeof value === 'string') {
    const resolved = resolveReferences(value, values);
    return 'problem' in resolved ? problems.at(path, resolved.problem) : value;
  }
  if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) return value;
  return problems.at(path, 'must be a string, a number, true or false');
}

const SOURCE_SHAPE = 'a field name, {field, transform} or {value}';

function parseSource(
  value: unknown,
  path: string,
  context: MappingContext,
  problems: Problems,
): FieldSource | undefined {
  if (typeof value === 'string') {
    const field = readSourceField(value, path, context, problems);
    return field && { field, transform: [] };
  }
  const fields = readObject(value, path, ['field', 'transform', 'value'], problems, SOURCE_SHAPE);
  if (!fields) return undefined;
  const kind = oneOf(fields, ['field', 'value'], path, problems);
  if (kind === 'value') {
    if (fields.transform !== undefined) problems.at(keyPath(path, 'transform'), 'is used only with field');
    const constant = readConstant(fields.value, keyPath(path, 'value'), context.values, problems);
    return constant === undefined ? undefined : { value: constant };
  }
  if (kind === undefined) return undefined;
  const field = readSourceField(fields.field, keyPath(path, 'field'), context, problems);
  const transform =
    fields.transform === undefined
      ? []
      : parseTransforms(fields.transform, keyPath(path, 'transform'), field, problems);
  return field === undefined || transform === undefined ? undefined : { field, transform };
}

/** In a JSON body "a.b" nests b under a, so "a" cannot also be a value of its own. */
function checkJsonKeys(keys: readonly string[], path: string, problems: Problems): void {
  const all = new Set(keys);
  for (const key of keys) {
    const parts = key.split('.');
    if (parts.includes('')) {
      problems.at(keyPath(path, key), 'must be a dotted path without empty parts');
      continue;
    }
    const nestedUnder = parts
      .slice(1)
      .map((_, index) => parts.slice(0, index + 1).join('.'))
      .find((prefix) => all.has(prefix));
    if (nestedUnder !== undefined)
      problems.at(
        keyPath(path, key),
        `conflicts with ${keyPath(path, nestedUnder)}: a JSON value cannot also hold keys`,
      );
  }
}

/** The keys as what the format makes of them: dotted JSON paths, XML element paths or placeholder names. */
function checkKeys(keys: readonly string[], path: string, context: MappingContext, problems: Problems): void {
  if (context.format === 'json') {
    checkJsonKeys(keys, path, problems);
    return;
  }
  if (context.format !== 'xml' && context.format !== 'soap') return;
  if (context.template) {
    for (const key of keys)
      if (!PLACEHOLDER_NAME.test(key))
        problems.at(keyPath(path, key), 'must be a placeholder name of letters, digits, "_", "." or "-"');
    return;
  }
  for (const { key, message } of elementPathProblems(keys)) problems.at(keyPath(path, key), message);
}

/**
 * Output key -> source. A source is a field name, `{field, transform}` (one transform or a list) or
 * `{value}`, a constant. JSON keys are dotted paths into the body; XML keys element paths, or with a
 * template the names of its placeholders.
 */
export function parseMapping(
  value: unknown,
  path: string,
  context: MappingContext,
  problems: Problems,
): Record<string, FieldSource> | undefined {
  if (!isPlainObject(value)) return problems.at(path, `must be an object of output key -> ${SOURCE_SHAPE}`);
  const start = problems.found.length;
  const keys = Object.keys(value);
  if (keys.length === 0) return problems.at(path, 'must map at least one key');
  const entries: [string, FieldSource][] = [];
  for (const [key, source] of Object.entries(value)) {
    const parsed = parseSource(source, keyPath(path, key), context, problems);
    if (parsed) entries.push([key, parsed]);
  }
  checkKeys(keys, path, context, problems);
  // fromEntries, not assignment: a key such as "__proto__" stays a plain key.
  return problems.found.length > start ? undefined : Object.fromEntries(entries);
}
