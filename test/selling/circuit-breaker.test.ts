import { expect } from 'chai';
import type { EndpointConfig } from '../../services/simulator/index.js';
import { describeEachDatabase } from '../support/test-database.js';
import { endpointStats, personLead, postsOf, rowsOf, simBuyer, skipReasons, soldOf, useMarket } from './support.js';

/** As the running service sets it (server.ts): five failed calls in a row open a buyer's circuit for 30 s. */
const FAILURE_THRESHOLD = 5;
const HANG_TIMEOUT_MS = 1500;

describeEachDatabase('selling: circuit breaker per buyer', (database) => {
  const market = useMarket(database);

  it(`stops waiting on a buyer after ${FAILURE_THRESHOLD} failures in a row: later leads skip it as circuit_open and answer fast`, async () => {
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

  it('opens on failing pings too, and counts only failures in a row', async () => {
    const { simulate, apply, submit, attempts } = market();
    const endpoints = (failing: boolean): EndpointConfig[] => [
      { path: '/flaky/ping', kind: 'ping', bid: { fixed: 40 }, ...(failing && { errors: { status500: 1 } }) },
      { path: '/flaky/post', kind: 'post', ping: '/flaky/ping', acceptRate: 0 },
      { path: '/backup/post', kind: 'direct_post', price: { fixed: 20 } },
    ];
    const simulator = await simulate(endpoints(true));
    const ids = await apply([
      simBuyer('flaky-pinger', simulator.url, { ping: '/flaky/ping', post: '/flaky/post' }),
      simBuyer('ping-backup', simulator.url, { post: '/backup/post', pricing: { type: 'fixed', price: '20.00' } }),
    ]);
    const sell = async () => soldOf(await submit(personLead()));

    // Four failures, one well-formed answer (a bid whose post is declined), four failures: never five in a row.
    for (let i = 0; i < FAILURE_THRESHOLD - 1; i += 1) await sell();
    simulator.configure(endpoints(false));
    await sell();
    simulator.configure(endpoints(true));
    for (let i = 0; i < FAILURE_THRESHOLD - 1; i += 1) await sell();
    expect(endpointStats(simulator, '/flaky/ping').pings).to.equal(2 * (FAILURE_THRESHOLD - 1) + 1);

    // The fifth failure in a row opens the circuit: the next leads do not ping it at all.
    await sell();
    const later = await sell();
    expect(skipReasons(await attempts(later.leadId), ids['flaky-pinger']!)).to.deep.equal(['circuit_open']);
    expect(later.buyerId).to.equal(ids['ping-backup']);
    expect(endpointStats(simulator, '/flaky/ping').pings).to.equal(2 * (FAILURE_THRESHOLD - 1) + 2);
  });
});
