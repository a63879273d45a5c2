import { zonedClock } from '@leadflow/core/zoned-time';
import { expect } from 'chai';

describe("a time zone's wall clock", () => {
  it('reads each minute as the zone shows it, across a daylight saving change, in any order', () => {
    const at = (iso: string) => zonedClock(new Date(iso), 'America/New_York');
    expect(at('2026-03-08T06:59:10Z')).to.include({ day: 8, hour: 1, minute: 59, weekday: 'sun' });
    expect(at('2026-03-08T06:59:50Z')).to.include({ hour: 1, minute: 59 });
    expect(at('2026-03-08T07:00:00Z'), 'clocks go forward to 3:00').to.include({ hour: 3, minute: 0 });
    expect(at('2026-03-08T06:59:59Z'), 'an earlier minute asked again').to.include({ hour: 1, minute: 59 });
    expect(zonedClock(new Date('2026-03-08T07:00:30Z'), 'Asia/Kolkata')).to.include({ hour: 12, minute: 30 });
    expect(at('2026-11-01T05:30:00Z')).to.include({ hour: 1, minute: 30 });
    expect(at('2026-11-01T06:30:00Z'), 'clocks go back: 1:30 again').to.include({ hour: 1, minute: 30 });
  });
});
