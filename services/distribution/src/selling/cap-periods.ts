import { zonedClock } from '@leadflow/core/zoned-time';
import type { Caps } from '../buyers/definition/buyer-definition.js';

export interface CapPeriod {
  /** The counter row's key, e.g. "d:2026-11-22". */
  period: string;
  maxLeads: number | undefined;
  maxSpendCents: number | undefined;
}

const pad = (value: number) => String(value).padStart(2, '0');

/**
 * The counters a sale to this buyer counts against now: its hour, day and
 * month in the buyer's time zone, each with the limits that apply to it.
 * Periods without a limit are not counted.
 */
export function capPeriods(caps: Caps, now: Date, timezone: string): CapPeriod[] {
  const periods: CapPeriod[] = [];
  if (
    caps.leadsPerHour === undefined &&
    caps.leadsPerDay === undefined &&
    caps.leadsPerMonth === undefined &&
    caps.spendPerDayCents === undefined
  ) {
    return periods;
  }
  const clock = zonedClock(now, timezone);
  const [year, month, day, hour] = [String(clock.year), pad(clock.month), pad(clock.day), pad(clock.hour)];
  if (caps.leadsPerHour !== undefined) {
    periods.push({
      period: `h:${year}-${month}-${day}T${hour}`,
      maxLeads: caps.leadsPerHour,
      maxSpendCents: undefined,
    });
  }
  if (caps.leadsPerDay !== undefined || caps.spendPerDayCents !== undefined) {
    periods.push({
      period: `d:${year}-${month}-${day}`,
      maxLeads: caps.leadsPerDay,
      maxSpendCents: caps.spendPerDayCents,
    });
  }
  if (caps.leadsPerMonth !== undefined) {
    periods.push({ period: `m:${year}-${month}`, maxLeads: caps.leadsPerMonth, maxSpendCents: undefined });
  }
  return periods;
}
