import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { testGateway, testKey, VALID_LEAD } from '../../support/gateway.js';

const KEY = testKey('shutdown');

import { ScriptedDistribution } from '../../support/scripted-distribution.js';

describe('gateway: closing', () => {
  it('finishes a lead in flight, then stops accepting', async () => {
    const distribution = new ScriptedDistribution();
    await distribution.start();
    distribution.keys.set(KEY, { publisherId: 'pub-1', rateLimitPerMinute: 60 });
    distribution.submitDelayMs = 300;
    const app = testGateway(distribution.address);
    try {
      await app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const inFlight = fetch(`${base}/api/intake/${KEY}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(VALID_LEAD),
      });
      while (distribution.submitCalls.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));

      await app.close();
      const response = await inFlight;
      expect(response.status).to.equal(200);
      expect(await response.json()).to.include({ status: 'sold' });
      let refused = false;
      await fetch(`${base}/health/live`).catch(() => (refused = true));
      expect(refused).to.equal(true);
    } finally {
      distribution.stop();
    }
  });
});
