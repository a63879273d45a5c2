import { parseAmountCents } from '@leadflow/core/amounts';
import { parseCalendarDate } from '@leadflow/core/calendar-date';
import { LEAD_FIELDS } from '@leadflow/core/lead-fields';
import { zonedClock } from '@leadflow/core/zoned-time';
import type { FilterField } from '../definition/buyer-definition.js';
import { fieldKind } from './filter-fields.js';

export type FactValue = string | number | boolean;

/**
 * What filters and pricing rules read of a lead: its normalized fields and the derived values, amounts
 * in dollars. A missing value is absent (or undefined), never an empty string.
 */
export type LeadFacts = Readonly<Partial<Record<FilterField, FactValue>>>;

export interface LeadFactsInput {
  /** Normalized lead fields by JSON name; '' = not sent. */
  fields: Readonly<Record<string, string>>;
  ageYears: number;
  loanAmountCents: number;
  incomeNetMonthlyCents: number | null;
  test: boolean;
  publisherId: string;
  /** When the lead arrived. */
  now: Date;
}

const DAY_MS = 86_400_000;

function leadFieldFacts(fields: Readonly<Record<string, string>>): Partial<Record<FilterField, FactValue>> {
  const facts: Partial<Record<FilterField, FactValue>> = {};
  for (const field of LEAD_FIELDS) {
    const text = fields[field] ?? '';
    if (text === '') continue;
    facts[field] = fieldKind(field) === 'number' ? Number(text) : text;
  }
  return facts;
}

function dollars(cents: number | null | undefined): number | undefined {
  return cents === null || cents === undefined ? undefined : cents / 100;
}

/**
 * The lead's facts as a buyer in `timezone` sees them: hour of day, day of week and the days until the
 * next pay date are read on that zone's clock and calendar (UTC for a buyer without a schedule).
 */
export function leadFacts(input: LeadFactsInput, timezone: string): LeadFacts {
  const clock = zonedClock(input.now, timezone);
  const payDate = parseCalendarDate(input.fields.incomeNextDate1 ?? '');
  const today = Date.UTC(clock.year, clock.month - 1, clock.day);
  return {
    ...leadFieldFacts(input.fields),
    price: dollars(parseAmountCents(input.fields.price ?? '')),
    loanAmount: dollars(input.loanAmountCents),
    incomeNetMonthly: dollars(input.incomeNetMonthlyCents),
    testMode: input.test,
    age: input.ageYears,
    daysUntilNextPayDate: payDate
      ? (Date.UTC(payDate.year, payDate.month - 1, payDate.day) - today) / DAY_MS
      : undefined,
    hourOfDay: clock.hour,
    dayOfWeek: clock.weekday,
    publisherId: input.publisherId,
  };
}

/**
 * leadFacts of one lead for buyers in any zone, computed once per zone: a lead goes to many buyers and
 * they share few zones.
 */
export function factsByZone(input: LeadFactsInput): (timezone: string) => LeadFacts {
  const zones = new Map<string, LeadFacts>();
  return (timezone) => {
    let facts = zones.get(timezone);
    if (!facts) {
      facts = leadFacts(input, timezone);
      zones.set(timezone, facts);
    }
    return facts;
  };
}
