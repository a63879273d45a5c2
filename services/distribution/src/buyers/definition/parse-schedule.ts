import { canonicalTimeZone, WEEKDAYS, type Weekday } from '@leadflow/core/zoned-time';
import type { Schedule } from './buyer-definition.js';
import { indexPath, keyPath, type Problems } from './problems.js';
import { isAbsent, readList, readObject, readText, required } from './read-values.js';

const CLOCK_TIME = /^(\d{1,2}):(\d{2})$/;

function readTimeZone(value: unknown, path: string, problems: Problems): string | undefined {
  const name = readText(value, path, problems);
  if (name === undefined) return undefined;
  return canonicalTimeZone(name) ?? problems.at(path, 'must be an IANA time zone such as America/New_York');
}

function readDays(value: unknown, path: string, problems: Problems): Weekday[] | undefined {
  const items = readList(value, path, problems);
  if (!items) return undefined;
  const days = new Set<string>();
  items.forEach((item, index) => {
    const day = typeof item === 'string' ? item.toLowerCase() : '';
    if ((WEEKDAYS as readonly string[]).includes(day)) days.add(day);
    else problems.at(indexPath(path, index), `must be one of: ${WEEKDAYS.join(', ')}`);
  });
  return WEEKDAYS.filter((day) => days.has(day));
}

/** "8:00" or "08:00" as "08:00". */
function readClockTime(value: unknown, path: string, problems: Problems): string | undefined {
  const match = typeof value === 'string' ? CLOCK_TIME.exec(value) : null;
  if (!match || Number(match[1]) > 23 || Number(match[2]) > 59)
    return problems.at(path, 'must be a time of day HH:MM such as 08:00');
  return `${match[1].padStart(2, '0')}:${match[2]}`;
}

function readHours(value: unknown, path: string, problems: Problems): Schedule['hours'] {
  const fields = readObject(value, path, ['from', 'to'], problems, '{from: "HH:MM", to: "HH:MM"}');
  if (!fields) return undefined;
  const from = required(fields.from, keyPath(path, 'from'), problems, (v) =>
    readClockTime(v, keyPath(path, 'from'), problems),
  );
  const to = required(fields.to, keyPath(path, 'to'), problems, (v) => readClockTime(v, keyPath(path, 'to'), problems));
  if (from === undefined || to === undefined) return undefined;
  if (from === to) return problems.at(path, 'from and to must differ; leave hours out to stay open all day');
  return { from, to };
}

export function parseSchedule(value: unknown, path: string, problems: Problems): Schedule | undefined {
  const fields = readObject(value, path, ['timezone', 'days', 'hours'], problems);
  if (!fields) return undefined;
  const start = problems.found.length;
  const timezone = required(fields.timezone, keyPath(path, 'timezone'), problems, (v) =>
    readTimeZone(v, keyPath(path, 'timezone'), problems),
  );
  const days = isAbsent(fields.days) ? [...WEEKDAYS] : readDays(fields.days, keyPath(path, 'days'), problems);
  const hours = isAbsent(fields.hours) ? undefined : readHours(fields.hours, keyPath(path, 'hours'), problems);
  if (problems.found.length > start || timezone === undefined || days === undefined) return undefined;
  return { timezone, days, hours };
}
