import type { EndpointConfig } from '@leadflow/simulator';
import { expect } from 'chai';
import {
  endpointStats,
  personLead,
  postsOf,
  rowsOf,
  simBuyer,
  skipReasons,
  soldOf,
  useMarket,
} from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/** As the service runs (DEFAULT_CIRCUIT_BREAKER): a buyer that only fails is paused at its fifth failure. */
const FAILURE_THRESHOLD = 5;
const HANG_TIMEOUT_MS = 1500;

describeEachDatabase('selling: circuit breaker per buyer', (database) => {
  const market = useMarket(database);

  it(`stops waiting on a buyer that only fails after ${FAILURE_THRESHOLD} failures: later leads skip it as circuit_open and answer fast`, async () => {
    const { simulate, apply, timed, attempts } = market();
    const simulator = await simulate([
      { path: '/hanging/post', kind: 'direct_post', price: { fixed: 40 }, errors: { hang: 1 } },
      { path: '/backup/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await apply([
      // Its timeouts count as declines, so that each lead goes on to the backup.
      simBuyer('hanging', simulator.url, {
        post: '/hanging/post',
        timeoutMs: HANG_TIMEOUT_MS,
        onTimeout: 'decline',
        pricing: { type: 'fixed', price: '40.00' },
      }),
      simBuyer('backup', simulator.url, { post: '/backup/post', pricing: { type: 'fixed', price: '20.00' } }),
    ]);

    for (let i = 0; i < FAILURE_THRESHOLD; i += 1) {
      const { answer, ms } = await timed(personLead());
      const sold = soldOf(answer);
      expect(sold.buyerId).to.equal(ids.backup);
      expect(ms, `lead ${i + 1} waited on the hanging buyer`).to.be.at.least(HANG_TIMEOUT_MS - 50);
      expect(postsOf(await attempts(sold.leadId), ids.hanging!).map((post) => post.outcome)).to.deep.equal(['timeout']);
    }
    for (let i = 0; i < 3; i += 1) {
      const { answer, ms } = await timed(personLead());
      const sold = soldOf(answer);
      expect(sold.buyerId).to.equal(ids.backup);
      expect(ms, 'no wait on the paused buyer').to.be.below(HANG_TIMEOUT_MS / 2);
      const trail = await attempts(sold.leadId);
      expect(rowsOf(trail, ids.hanging!).map((row) => [row.kind, row.reason])).to.deep.equal([
        ['skip', 'circuit_open'],
      ]);
    }
    expect(endpointStats(simulator, '/hanging/post').posts).to.equal(FAILURE_THRESHOLD);
  });

  it('opens on failing pings too, but keeps a buyer that answers most of its calls', async () => {
    const { simulate, apply, submit, attempts } = market();
    const endpoints = (failing: boolean): EndpointConfig[] => [
      { path: '/flaky/ping', kind: 'ping', bid: { fixed: 40 }, ...(failing && { errors: { status500: 1 } }) },
      { path: '/flaky/post', kind: 'post', ping: '/flaky/ping', acceptRate: 0 },
      { path: '/backup/post', kind: 'direct_post', price: { fixed: 20 } },
    ];
    const simulator = await simulate(endpoints(false));
    const ids = await apply([
      simBuyer('flaky-pinger', simulator.url, { ping: '/flaky/ping', post: '/flaky/post' }),
      simBuyer('ping-backup', simulator.url, { post: '/backup/post', pricing: { type: 'fixed', price: '20.00' } }),
    ]);
    const sell = async (failing: boolean) => {
      simulator.configure(endpoints(failing));
      return soldOf(await submit(personLead()));
    };

    // Each answered lead is two calls on its record (the ping and the declined post), a failed ping one.
    // One lead in four fails, twice in a row at the end: 4 failures in 20 calls, and it stays in the auction.
    for (const failing of [false, false, false, true, false, false, false, true, false, false, true, true]) {
      await sell(failing);
    }
    expect(endpointStats(simulator, '/flaky/ping').pings).to.equal(12);

    // Then every ping fails. The fifth failure in a row is not enough (9 of the last 20 calls); the ninth
    // makes 12 of the last 20, 60%, and the next leads do not ping it at all.
    for (let i = 0; i < 8; i += 1) await sell(true);
    expect(endpointStats(simulator, '/flaky/ping').pings).to.equal(20);
    await sell(true);
    const later = await sell(true);
    expect(skipReasons(await attempts(later.leadId), ids['flaky-pinger']!)).to.deep.equal(['circuit_open']);
    expect(later.buyerId).to.equal(ids['ping-backup']);
    expect(endpointStats(simulator, '/flaky/ping').pings).to.equal(21);
  });
});
