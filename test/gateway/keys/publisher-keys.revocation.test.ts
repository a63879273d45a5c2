import { expect } from 'chai';
import { bearer, call } from '../../support/grpc.js';
import { validLeadBody } from '../../support/leads.js';
import { startGateway, useMarket } from '../../support/selling.js';
import { describeEachDatabase } from '../../support/test-database.js';

// The gateway keeps a live key's answer for a while (publisher-keys.ts); the distribution service
// checks the key again on every lead, so a revocation holds at once all the same.
describeEachDatabase('gateway and distribution: a revoked key', (database) => {
  const market = useMarket(database);

  it('is refused at the next lead, while the gateway still holds its answer', async () => {
    const m = market();
    const gateway = await startGateway(m.stack);
    try {
      const post = () =>
        fetch(`${gateway.baseUrl}/api/intake/${m.key}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(validLeadBody()),
        });
      expect((await post()).status).to.equal(200);

      const admin = m.stack.admin;
      const auth = bearer(m.stack.service.adminToken);
      const { publishers } = await call(admin.listPublishers.bind(admin), { pageSize: 0, pageToken: '' }, auth);
      const keyId = publishers.find((publisher) => publisher.id === m.publisherId)!.keys[0]!.id;
      await call(admin.revokePublisherKey.bind(admin), { keyId }, auth);

      const refused = await post();
      expect(refused.status).to.equal(401);
      expect(await refused.json()).to.deep.equal({ status: 'error', message: 'Unknown or revoked webmaster key' });
    } finally {
      await gateway.close();
    }
  });
});
