import type { Schedule } from '@leadflow/distribution/src/buyers/definition/buyer-definition';
import { isOpen } from '@leadflow/distribution/src/buyers/rules/schedule';
import { expect } from 'chai';

const WEEKDAYS_ONLY: Schedule['days'] = ['mon', 'tue', 'wed', 'thu', 'fri'];

describe('isOpen', () => {
  it('is always open without a schedule', () => {
    expect(isOpen(undefined, new Date('2025-06-15T03:00:00Z'))).to.equal(true);
  });

  it('opens at from and closes at to, in the zone', () => {
    const chicago: Schedule = {
      timezone: 'America/Chicago',
      days: WEEKDAYS_ONLY,
      hours: { from: '08:00', to: '20:00' },
    };
    // Monday 2025-06-16; Chicago is UTC-5 in summer.
    expect(isOpen(chicago, new Date('2025-06-16T12:59:00Z'))).to.equal(false);
    expect(isOpen(chicago, new Date('2025-06-16T13:00:00Z'))).to.equal(true);
    expect(isOpen(chicago, new Date('2025-06-17T00:59:00Z'))).to.equal(true);
    expect(isOpen(chicago, new Date('2025-06-17T01:00:00Z'))).to.equal(false);
  });

  it('keeps its local hours across a daylight saving time change', () => {
    const newYork: Schedule = {
      timezone: 'America/New_York',
      days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      hours: { from: '09:00', to: '17:00' },
    };
    expect(isOpen(newYork, new Date('2025-03-07T14:00:00Z'))).to.equal(true); // 09:00 EST
    expect(isOpen(newYork, new Date('2025-03-10T13:00:00Z'))).to.equal(true); // 09:00 EDT
    expect(isOpen(newYork, new Date('2025-03-10T21:30:00Z'))).to.equal(false); // 17:30 EDT
    expect(isOpen(newYork, new Date('2025-03-07T21:30:00Z'))).to.equal(true); // 16:30 EST
  });

  it('is open on listed days only, all day without hours', () => {
    const weekends: Schedule = { timezone: 'America/Los_Angeles', days: ['sat', 'sun'], hours: undefined };
    // Saturday 2025-06-14 00:30 in Los Angeles is 07:30 UTC; Friday 23:30 is 06:30 UTC.
    expect(isOpen(weekends, new Date('2025-06-14T07:30:00Z'))).to.equal(true);
    expect(isOpen(weekends, new Date('2025-06-14T06:30:00Z'))).to.equal(false);
    expect(isOpen(weekends, new Date('2025-06-16T06:59:00Z'))).to.equal(true);
    expect(isOpen(weekends, new Date('2025-06-16T07:00:00Z'))).to.equal(false);
  });

  it('wraps past midnight, the early hours belonging to the day the window opened', () => {
    const fridayNight: Schedule = { timezone: 'UTC', days: ['fri'], hours: { from: '20:00', to: '02:00' } };
    expect(isOpen(fridayNight, new Date('2025-06-13T19:59:00Z'))).to.equal(false); // Fri 19:59
    expect(isOpen(fridayNight, new Date('2025-06-13T20:00:00Z'))).to.equal(true); // Fri 20:00
    expect(isOpen(fridayNight, new Date('2025-06-14T01:59:00Z'))).to.equal(true); // Sat 01:59
    expect(isOpen(fridayNight, new Date('2025-06-14T02:00:00Z'))).to.equal(false); // Sat 02:00
    expect(isOpen(fridayNight, new Date('2025-06-13T01:00:00Z'))).to.equal(false); // Fri 01:00, Thursday's window
    expect(isOpen(fridayNight, new Date('2025-06-14T20:30:00Z'))).to.equal(false); // Sat 20:30
  });

  it('wraps from Sunday night into Monday', () => {
    const sundayNight: Schedule = { timezone: 'UTC', days: ['sun'], hours: { from: '22:00', to: '06:00' } };
    expect(isOpen(sundayNight, new Date('2025-06-16T05:00:00Z'))).to.equal(true); // Mon 05:00
    expect(isOpen(sundayNight, new Date('2025-06-15T05:00:00Z'))).to.equal(false); // Sun 05:00, Saturday's window
  });
});
