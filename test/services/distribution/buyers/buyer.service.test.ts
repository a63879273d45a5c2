import { setTimeout as sleep } from 'node:timers/promises';
import { status } from '@grpc/grpc-js';
import { ACTIVE_BUYERS_TTL_MS } from '@leadflow/distribution/src/buyers/buyer.service';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { bearer, call } from '../../../support/grpc.js';
import { endpointStats, personLead, simBuyer, soldOf, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

describeEachDatabase('selling: a stored definition that fails the rules of apply is never used', (database) => {
  const logLines: string[] = [];
  const market = useMarket(database, {
    logger: createLogger('stored-definitions-test', 'error', { write: (line: string) => void logLines.push(line) }),
  });

  it('leaves the buyer out of selling and listing, says why on show, and logs it without a value', async () => {
    const m = market();
    const simulator = await m.simulate([
      { path: '/tampered/ping', kind: 'ping', bid: { fixed: 90 } },
      { path: '/tampered/post', kind: 'post', ping: '/tampered/ping' },
      { path: '/honest/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await m.apply([
      simBuyer('tampered', simulator.url, { ping: '/tampered/ping', post: '/tampered/post' }),
      simBuyer('honest', simulator.url, { post: '/honest/post' }),
    ]);

    // Written behind apply's back (an old release, a restore, a hand edit): the ping would carry the SSN.
    const row = await m.db
      .selectFrom('buyers')
      .select('definition')
      .where('id', '=', ids.tampered!)
      .executeTakeFirstOrThrow();
    const definition = JSON.parse(row.definition);
    definition.integration.ping.mapping.ssn = { field: 'ssn', transform: [] };
    await m.db
      .updateTable('buyers')
      .set({ definition: JSON.stringify(definition), updated_at: Date.now() })
      .where('id', '=', ids.tampered!)
      .execute();
    // Every instance re-reads its active buyers after this long.
    await sleep(ACTIVE_BUYERS_TTL_MS + 200);

    const lead = personLead();
    const sold = soldOf(await m.submit(lead));
    expect(sold.buyerId).to.equal(ids.honest);
    expect(endpointStats(simulator, '/tampered/ping').pings).to.equal(0);

    const admin = m.stack.admin;
    const auth = () => bearer(m.stack.service.adminToken);
    const { buyers } = await call(admin.listBuyers.bind(admin), { pageSize: 0, pageToken: '' }, auth());
    expect(buyers.map((buyer) => buyer.id))
      .to.include(ids.honest)
      .and.not.include(ids.tampered);
    const shown = await call(admin.getBuyer.bind(admin), { buyer: ids.tampered! }, auth()).then(
      () => expect.fail('expected show to fail'),
      (error: { code: number; details: string }) => error,
    );
    expect(shown.code).to.equal(status.FAILED_PRECONDITION);
    expect(shown.details).to.include(
      'integration.ping.mapping.ssn.field: ssn is personal data and is never sent in a ping',
    );

    const logged = logLines.map((line) => JSON.parse(line)).filter((line) => line.buyerId === ids.tampered);
    expect(logged.length).to.be.at.least(1);
    expect(logged[0].msg).to.match(/stored buyer definition is invalid/);
    expect(JSON.stringify(logged)).not.to.include(String(lead.ssn).replaceAll('-', ''));

    // A corrected file puts it back.
    await m.apply([simBuyer('tampered', simulator.url, { ping: '/tampered/ping', post: '/tampered/post' })]);
    const again = soldOf(await m.submit(personLead()));
    expect(again.buyerId).to.equal(ids.tampered);
  });
});
