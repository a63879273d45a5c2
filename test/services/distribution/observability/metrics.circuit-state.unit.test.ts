import { DistributionMetrics } from '@leadflow/distribution/src/observability/metrics';
import { CircuitBreakers } from '@leadflow/distribution/src/selling/circuit-breaker';
import { expect } from 'chai';
import { sampled } from '../../../support/metrics-text.js';

describe('observability: the circuit state gauge', () => {
  it('reads 2 open, 1 half-open and 0 closed again, per buyer called, at each scrape', async () => {
    let now = 0;
    const breakers = new CircuitBreakers({
      windowSize: 1,
      minFailures: 1,
      failureShare: 1,
      firstPauseMs: 1000,
      maxPauseMs: 1000,
      now: () => now,
    });
    const metrics = new DistributionMetrics(() => breakers.states());
    const state = async (buyerId: string) =>
      sampled(await metrics.registry.metrics(), 'leadflow_circuit_state', { buyer_id: buyerId });

    breakers.recordSuccess('buy_steady');
    breakers.recordFailure('buy_flaky');
    expect(await state('buy_flaky')).to.equal(2);
    expect(await state('buy_steady')).to.equal(0);
    expect(await state('buy_never_called')).to.equal(undefined);

    now = 1000;
    expect(await state('buy_flaky')).to.equal(1);

    expect(breakers.allow('buy_flaky')).to.equal(true);
    breakers.recordSuccess('buy_flaky');
    expect(await state('buy_flaky')).to.equal(0);
  });
});
