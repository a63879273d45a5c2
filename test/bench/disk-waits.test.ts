import { expect } from 'chai';
import { parseSamples } from '../support/metrics-text.js';
import { diskWaitFigures, diskWaitsBetween } from './disk-waits.js';

const reading = (waits: number, syncs: number) =>
  parseSamples(`leadflow_store_disk_waits_total ${waits}\nleadflow_store_syncs_total ${syncs}\n`);

describe('the disk waits of a bench run', () => {
  it('counts what the run added, per lead and per post', () => {
    const counted = diskWaitsBetween(reading(40, 30), reading(280, 190));
    expect(counted).to.deep.equal({ waits: 240, syncs: 160 });
    expect(diskWaitFigures(counted, 100, 80)).to.deep.equal({ waitsPerLead: 2.4, syncsPerLead: 1.6, waitsPerPost: 3 });
  });

  it('has none for a store that counts none (MySQL)', () => {
    const mysql = parseSamples('nodejs_eventloop_lag_p99_seconds 0.01\n');
    expect(diskWaitsBetween(mysql, mysql)).to.equal(undefined);
    expect(diskWaitFigures(undefined, 100, 80)).to.equal(undefined);
  });
});
