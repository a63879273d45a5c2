import { type FilterKind, filterKindOf } from '@leadflow/core/lead-field-rules';
import { isLeadField, LEAD_FIELDS, leadFieldFacts } from '@leadflow/core/lead-fields';
import type { DerivedField, FilterField } from '../definition/buyer-definition.js';

const DERIVED_FIELDS = [
  'age',
  'loanAmount',
  'incomeNetMonthly',
  'daysUntilNextPayDate',
  'hourOfDay',
  'dayOfWeek',
  'testMode',
  'publisherId',
] as const satisfies readonly DerivedField[];

// Fails to compile, naming the field, when a DerivedField is missing from DERIVED_FIELDS.
({}) satisfies Record<Exclude<DerivedField, (typeof DERIVED_FIELDS)[number]>, never>;

/** Every name a filter can read: the lead's fields, then the derived values not named like one. */
export const FILTER_FIELDS: readonly FilterField[] = [...new Set<FilterField>([...LEAD_FIELDS, ...DERIVED_FIELDS])];

const FILTER_FIELD_NAMES: ReadonlySet<string> = new Set(FILTER_FIELDS);

export function isFilterField(name: string): name is FilterField {
  return FILTER_FIELD_NAMES.has(name);
}

/**
 * What kind of value a filter reads from a field: `dollars` are amounts (compared in dollars, as the
 * file writes them), `number` other counts. A lead field's kind is in the lead-field catalogue.
 */
export type FieldKind = FilterKind;

/** The derived values that are not text and not named like a lead field. */
const DERIVED_KINDS: Partial<Record<FilterField, FieldKind>> = {
  age: 'number',
  daysUntilNextPayDate: 'number',
  hourOfDay: 'number',
};

export function fieldKind(field: FilterField): FieldKind {
  return isLeadField(field) ? filterKindOf(leadFieldFacts(field).rule) : (DERIVED_KINDS[field] ?? 'text');
}
