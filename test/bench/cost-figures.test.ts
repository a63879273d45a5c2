import { expect } from 'chai';
import { cpuRatio, fanoutCallCostRatio, ownPeakRssMb } from './cost-figures.js';
import { CpuMeter, processCpuMs } from './cpu-meter.js';
import type { FanoutResult } from './fanout-scenario.js';
import type { LoadResult } from './load.js';
import type { ScenarioResult } from './scenario.js';

const load = (requests: number): LoadResult => ({
  rps: 0,
  requests,
  answeredRps: 0,
  pacedRps: undefined,
  p50Ms: 0,
  p99Ms: 0,
  processingP50Ms: undefined,
  processingP99Ms: undefined,
  answers: [],
  errors: { total: 0, non200: {}, unexpected: 0, noAnswer: 0, samples: [] },
});
const scenario = (
  requests: number,
  cpuMs: Record<string, number>,
  rssMb: Record<string, number> = {},
): ScenarioResult => ({
  load: load(requests),
  cpuMs,
  rssMb,
});
const fanout = (buyerCalls: number, cpuMs: Record<string, number>): FanoutResult => ({
  ...scenario(10, cpuMs),
  buyerCalls,
});

describe('bench: cost figures', () => {
  it('reads a process CPU time that grows with its work', () => {
    const meter = new CpuMeter([{ name: 'self', cpuMs: () => processCpuMs(process.pid) }]);
    meter.start();
    // Read after the meter's own start: the counter never goes back, so the window holds at least these 50 ms.
    const started = processCpuMs(process.pid);
    const giveUpAt = performance.now() + 5_000;
    while (processCpuMs(process.pid) - started < 50 && performance.now() < giveUpAt) Math.sqrt(Math.random());
    meter.stop();
    expect(meter.result().self).to.be.within(50, 1_000);
  });

  it('compares CPU per lead with the floor, leaving the buyer simulators out', () => {
    const floor = scenario(1000, { floor_gateway: 600, floor_server: 400, simulator: 5000 });
    const full = scenario(500, { gateway: 500, distribution: 1500, simulator: 100 });
    expect(cpuRatio(full, floor)).to.equal(0.25);
  });

  it('compares CPU per buyer call with the bare client, and takes the peak RSS of our processes only', () => {
    expect(
      fanoutCallCostRatio(
        fanout(1000, { gateway: 100, distribution: 200, simulator_1: 900 }),
        fanout(2000, { bench: 400 }),
      ),
    ).to.equal(1.5);
    expect(fanoutCallCostRatio(fanout(0, { gateway: 1 }), fanout(10, { bench: 1 }))).to.equal(null);
    expect(
      ownPeakRssMb([
        scenario(1, {}, { gateway: 90, simulator: 300 }),
        undefined,
        scenario(1, {}, { distribution: 140 }),
      ]),
    ).to.equal(140);
  });
});
