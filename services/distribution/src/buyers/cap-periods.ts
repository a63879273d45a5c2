import type { Caps } from './definition/buyer-definition.js';

export interface CapPeriod {
  /** The counter row's key, e.g. "d:2026-11-22". */
  period: string;
  maxLeads: number | undefined;
  maxSpendCents: number | undefined;
}

function localParts(now: Date, timezone: string): { year: string; month: string; day: string; hour: string } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)!.value;
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour') };
}

/**
 * The counters a sale to this buyer counts against now: its hour, day and
 * month in the buyer's time zone, each with the limits that apply to it.
 * Periods without a limit are not counted.
 */
export function capPeriods(caps: Caps, now: Date, timezone: string): CapPeriod[] {
  const { year, month, day, hour } = localParts(now, timezone);
  const periods: CapPeriod[] = [];
  if (caps.leadsPerHour !== undefined) {
    periods.push({ period: `h:${year}-${month}-${day}T${hour}`, maxLeads: caps.leadsPerHour, maxSpendCents: undefined });
  }
  if (caps.leadsPerDay !== undefined || caps.spendPerDayCents !== undefined) {
    periods.push({ period: `d:${year}-${month}-${day}`, maxLeads: caps.leadsPerDay, maxSpendCents: caps.spendPerDayCents });
  }
  if (caps.leadsPerMonth !== undefined) {
    periods.push({ period: `m:${year}-${month}`, maxLeads: caps.leadsPerMonth, maxSpendCents: undefined });
  }
  return periods;
}
