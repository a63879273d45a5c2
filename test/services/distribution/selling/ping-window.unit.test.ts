import { MIN_LEARNED_PINGS, PingLatencies, pingWindowMs } from '@leadflow/distribution/src/selling/ping-window';
import { expect } from 'chai';
import fc from 'fast-check';

describe('ping window', () => {
  it("learns a buyer's 95th percentile answer time from its recent answers, once it has enough", () => {
    const latencies = new PingLatencies();
    for (let i = 1; i < MIN_LEARNED_PINGS; i += 1) latencies.record('b', i * 10);
    expect(latencies.p95Ms('b')).to.equal(undefined);
    for (let i = MIN_LEARNED_PINGS; i <= 20; i += 1) latencies.record('b', i * 10);
    expect(latencies.p95Ms('b')).to.equal(190);
    expect(latencies.p95Ms('other')).to.equal(undefined);
    // Only the most recent answers count: a buyer that became fast is learned as fast.
    for (let i = 0; i < 100; i += 1) latencies.record('b', 20);
    expect(latencies.p95Ms('b')).to.equal(20);
  });

  it('keeps the quantile of exactly the most recent 100 answers, whatever their order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2000 }), { maxLength: 260 }), (answers) => {
        const latencies = new PingLatencies();
        for (const ms of answers) latencies.record('b', ms);
        const window = answers.slice(-100).toSorted((a, b) => a - b);
        const expected = window.length < MIN_LEARNED_PINGS ? undefined : window[Math.ceil(window.length * 0.95) - 1];
        expect(latencies.p95Ms('b')).to.equal(expected);
      }),
    );
  });

  it('without a configured window: 15% of the time left, cut to what the slowest bidder needs', () => {
    const fast = { timeoutMs: 800, p95Ms: 200 };
    // Learned: 1.25 x the slowest 95th percentile, whatever the hanging pings of any bidder.
    expect(
      pingWindowMs({ configuredMs: undefined, leftMs: 2000, bidders: [fast, { timeoutMs: 800, p95Ms: 120 }] }),
    ).to.equal(250);
    // A bidder without figures counts with its timeout: a new buyer gets its chance.
    expect(
      pingWindowMs({ configuredMs: undefined, leftMs: 2000, bidders: [fast, { timeoutMs: 800, p95Ms: undefined }] }),
    ).to.equal(300);
    expect(
      pingWindowMs({ configuredMs: undefined, leftMs: 2000, bidders: [{ timeoutMs: 200, p95Ms: undefined }] }),
    ).to.equal(200);
    expect(pingWindowMs({ configuredMs: undefined, leftMs: 10_000, bidders: [fast] })).to.equal(250);
  });

  it('with a configured window: that, never longer than the slowest ping timeout or the time left', () => {
    const bidders = [{ timeoutMs: 800, p95Ms: 100 }];
    expect(pingWindowMs({ configuredMs: 400, leftMs: 2000, bidders })).to.equal(400);
    expect(pingWindowMs({ configuredMs: 1000, leftMs: 2000, bidders })).to.equal(800);
    expect(pingWindowMs({ configuredMs: 400, leftMs: 300, bidders })).to.equal(300);
    expect(pingWindowMs({ configuredMs: 400, leftMs: -5, bidders })).to.equal(0);
  });
});
