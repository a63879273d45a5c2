import { startOfDay } from '@leadflow/core/day-start';
import { nearestRank } from '@leadflow/distribution/src/reports/percentile';
import { bucketKey, QUARTER_HOUR_MS } from '@leadflow/distribution/src/reports/time-buckets';
import { expect } from 'chai';

describe('reports: percentiles and local time', () => {
  it('takes the nearest-rank percentile of ascending values', () => {
    const oneToTwenty = Array.from({ length: 20 }, (_, index) => index + 1);
    expect(nearestRank(oneToTwenty, 50)).to.equal(10);
    expect(nearestRank(oneToTwenty, 95)).to.equal(19);
    expect(nearestRank(oneToTwenty, 100)).to.equal(20);
    expect(nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).to.equal(10);
    expect(nearestRank([42.5], 50)).to.equal(42.5);
    expect(nearestRank([], 95)).to.equal(0);
  });

  it('finds when a local day begins, across daylight saving changes and on days whose midnight is skipped', () => {
    const start = (timezone: string, date: string) => {
      const [year, month, day] = date.split('-').map(Number) as [number, number, number];
      return new Date(startOfDay({ year, month, day }, timezone)).toISOString();
    };
    expect(start('UTC', '2026-11-01')).to.equal('2026-11-01T00:00:00.000Z');
    expect(start('America/New_York', '2026-11-01')).to.equal('2026-11-01T04:00:00.000Z');
    expect(start('America/New_York', '2026-11-02')).to.equal('2026-11-02T05:00:00.000Z');
    expect(start('America/New_York', '2026-03-08')).to.equal('2026-03-08T05:00:00.000Z');
    expect(start('America/New_York', '2026-03-09')).to.equal('2026-03-09T04:00:00.000Z');
    expect(start('Asia/Kathmandu', '2026-03-10')).to.equal('2026-03-09T18:15:00.000Z');
    // Chile moves its clocks at midnight: on 6 September 2026 they jump from 00:00 to 01:00,
    // on 5 April they fall back from 00:00 to 23:00 the day before.
    expect(start('America/Santiago', '2026-09-06')).to.equal('2026-09-06T04:00:00.000Z');
    expect(start('America/Santiago', '2026-04-05')).to.equal('2026-04-05T04:00:00.000Z');
    expect(start('America/Santiago', '2026-04-04')).to.equal('2026-04-04T03:00:00.000Z');
  });

  it('names the local day and hour of an instant', () => {
    expect(bucketKey(Date.parse('2026-03-08T04:59:59.999Z'), 'day', 'America/New_York')).to.equal('2026-03-07');
    expect(bucketKey(Date.parse('2026-03-08T07:00:00Z'), 'hour', 'America/New_York')).to.equal('2026-03-08T03');
    expect(bucketKey(Date.parse('2026-03-10T00:15:00Z'), 'hour', 'Asia/Kathmandu')).to.equal('2026-03-10T06');
    expect(bucketKey(Date.parse('2026-03-10T00:15:00Z'), 'hour', 'UTC')).to.equal('2026-03-10T00');
  });

  it('relies on every zone being a whole number of quarter hours off UTC', () => {
    for (const timezone of Intl.supportedValuesOf('timeZone')) {
      const format = new Intl.DateTimeFormat('en-US', { timeZone: timezone, timeZoneName: 'longOffset' });
      for (
        let instant = Date.parse('2026-01-01T00:00:00Z');
        instant < Date.parse('2027-01-01T00:00:00Z');
        instant += 7 * 86_400_000
      ) {
        const offset = format.formatToParts(instant).find((part) => part.type === 'timeZoneName')!.value;
        // "GMT", or "GMT+05:45"; an offset with seconds would not match.
        const match = /^GMT(?:[+-](\d\d):(\d\d))?$/.exec(offset);
        expect(match, `${timezone} ${offset}`).not.to.equal(null);
        const minutes = Number(match![1] ?? 0) * 60 + Number(match![2] ?? 0);
        expect((minutes * 60_000) % QUARTER_HOUR_MS, `${timezone} ${offset}`).to.equal(0);
      }
    }
  });
});
