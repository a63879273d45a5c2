import type { Caps } from './buyer-definition.js';
import { keyPath, type Problems } from './problems.js';
import { isAbsent, readCents, readObject, readWholeNumber } from './read-values.js';

const MAX_LEADS = 10_000_000;

/** `leadsPerHour`, `leadsPerDay`, `leadsPerMonth` and `spendPerDay` (dollars), each optional. */
export function parseCaps(value: unknown, path: string, problems: Problems): Caps | undefined {
  const none: Caps = {
    leadsPerHour: undefined,
    leadsPerDay: undefined,
    leadsPerMonth: undefined,
    spendPerDayCents: undefined,
  };
  if (isAbsent(value)) return none;
  const fields = readObject(value, path, ['leadsPerHour', 'leadsPerDay', 'leadsPerMonth', 'spendPerDay'], problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const leads = (key: 'leadsPerHour' | 'leadsPerDay' | 'leadsPerMonth'): number | undefined =>
    isAbsent(fields[key]) ? undefined : readWholeNumber(fields[key], keyPath(path, key), problems, 1, MAX_LEADS);
  const caps: Caps = {
    leadsPerHour: leads('leadsPerHour'),
    leadsPerDay: leads('leadsPerDay'),
    leadsPerMonth: leads('leadsPerMonth'),
    spendPerDayCents: isAbsent(fields.spendPerDay)
      ? undefined
      : readCents(fields.spendPerDay, keyPath(path, 'spendPerDay'), problems, 1),
  };
  return problems.found.length > start ? undefined : caps;
}
