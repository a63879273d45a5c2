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

describeEachDatabase('selling: duplicates per buyer', (database) => {
  const market = useMarket(database);

  it('does not sell a buyer with a 30-day look-back the same SSN, e-mail or cell phone twice; a buyer without a policy still gets them', async () => {
    const { simulate, apply, submit, attempts } = market();
    const simulator = await simulate([
      { path: '/strict/post', kind: 'direct_post', price: { fixed: 30 } },
      { path: '/lenient/post', kind: 'direct_post', price: { fixed: 20 } },
    ]);
    const ids = await apply([
      simBuyer('strict', simulator.url, {
        post: '/strict/post',
        duplicates: { lookbackDays: 30 },
        pricing: { type: 'fixed', price: '30.00' },
      }),
      simBuyer('lenient', simulator.url, { post: '/lenient/post', pricing: { type: 'fixed', price: '20.00' } }),
    ]);

    for (const shared of ['ssn', 'email', 'cellPhone'] as const) {
      const first = personLead();
      const bought = soldOf(await submit(first));
      expect(bought.buyerId, `${shared}: first lead of the person`).to.equal(ids.strict);

      // Another lead of the same person: only the one field in common.
      const again = soldOf(await submit(personLead({ [shared]: first[shared] })));
      expect(again.buyerId, `${shared}: second lead`).to.equal(ids.lenient);
      expect(skipReasons(await attempts(again.leadId), ids.strict!), shared).to.deep.equal(['duplicate']);
      const third = soldOf(await submit(personLead({ [shared]: first[shared] })));
      expect(third.buyerId, `${shared}: a buyer without a policy buys the person again`).to.equal(ids.lenient);
      expect(rowsOf(await attempts(third.leadId), ids.lenient!).map((row) => [row.kind, row.outcome])).to.deep.equal([
        ['post', 'accepted'],
      ]);
    }
    expect(endpointStats(simulator, '/strict/post').posts).to.equal(3);
    expect(endpointStats(simulator, '/lenient/post').accepted).to.equal(6);
  });

  it('with includeRejected, does not offer a buyer a person it turned down; without it, does', async () => {
    const { simulate, apply, submit, attempts } = market();
    const simulator = await simulate([
      { path: '/remembers/post', kind: 'direct_post', price: { fixed: 30 }, acceptRate: 0 },
      { path: '/forgets/post', kind: 'direct_post', price: { fixed: 29 }, acceptRate: 0 },
      { path: '/rej-backup/post', kind: 'direct_post', price: { fixed: 10 } },
    ]);
    const ids = await apply([
      simBuyer('remembers-rejections', simulator.url, {
        post: '/remembers/post',
        duplicates: { lookbackDays: 30, includeRejected: true },
        pricing: { type: 'fixed', price: '30.00' },
      }),
      simBuyer('bought-only', simulator.url, {
        post: '/forgets/post',
        duplicates: { lookbackDays: 30 },
        pricing: { type: 'fixed', price: '29.00' },
      }),
      simBuyer('rej-backup', simulator.url, { post: '/rej-backup/post', pricing: { type: 'fixed', price: '10.00' } }),
    ]);

    const first = personLead();
    const firstSale = soldOf(await submit(first));
    expect(firstSale.buyerId).to.equal(ids['rej-backup']);
    const firstTrail = await attempts(firstSale.leadId);
    expect(postsOf(firstTrail, ids['remembers-rejections']!).map((post) => post.outcome)).to.deep.equal(['rejected']);
    expect(postsOf(firstTrail, ids['bought-only']!).map((post) => post.outcome)).to.deep.equal(['rejected']);

    const second = soldOf(await submit(personLead({ ssn: first.ssn })));
    const trail = await attempts(second.leadId);
    expect(skipReasons(trail, ids['remembers-rejections']!)).to.deep.equal(['duplicate']);
    expect(
      postsOf(trail, ids['bought-only']!).map((post) => post.outcome),
      'a rejection is no purchase',
    ).to.deep.equal(['rejected']);
    expect(endpointStats(simulator, '/remembers/post').posts).to.equal(1);
    expect(endpointStats(simulator, '/forgets/post').posts).to.equal(2);
  });

  it('does not count test leads as history', async () => {
    const { simulate, apply, submit, attempts } = market();
    const simulator = await simulate([
      { path: '/tested/post', kind: 'direct_post', price: { fixed: 30 } },
      { path: '/tested-backup/post', kind: 'direct_post', price: { fixed: 10 } },
    ]);
    const ids = await apply([
      simBuyer('tested', simulator.url, {
        post: '/tested/post',
        duplicates: { lookbackDays: 30 },
        testBehaviour: 'accept',
        pricing: { type: 'fixed', price: '30.00' },
      }),
      simBuyer('tested-backup', simulator.url, {
        post: '/tested-backup/post',
        testBehaviour: 'accept',
        pricing: { type: 'fixed', price: '10.00' },
      }),
    ]);

    const person = personLead();
    for (let i = 0; i < 2; i += 1) {
      const test = soldOf(await submit({ ...person, clickid: `${person.clickid}-test-${i}`, testMode: '1' }));
      expect(test.buyerId, 'test lead').to.equal(ids.tested);
    }
    const live = soldOf(await submit(person));
    expect(live.buyerId, 'the first live lead of the person is no duplicate').to.equal(ids.tested);
    expect(skipReasons(await attempts(live.leadId), ids.tested!)).to.deep.equal([]);
    const liveAgain = soldOf(await submit({ ...person, clickid: `${person.clickid}-again` }));
    expect(liveAgain.buyerId, 'the second live lead is').to.equal(ids['tested-backup']);
    expect(endpointStats(simulator, '/tested/post').posts, 'test leads never reach the live endpoint').to.equal(1);
  });

  it('does not sell the same person twice to a buyer with a policy when two of their leads arrive together', async () => {
    const { simulate, apply, submit, db } = market();
    const simulator = await simulate([
      { path: '/racy/post', kind: 'direct_post', price: { fixed: 30 }, latencyMs: { fixed: 200 } },
      { path: '/racy-backup/post', kind: 'direct_post', price: { fixed: 10 } },
    ]);
    const ids = await apply([
      simBuyer('racy', simulator.url, {
        post: '/racy/post',
        duplicates: { lookbackDays: 30 },
        pricing: { type: 'fixed', price: '30.00' },
      }),
      simBuyer('racy-backup', simulator.url, { post: '/racy-backup/post', pricing: { type: 'fixed', price: '10.00' } }),
    ]);

    // A publisher double-submitting one applicant: same person, two clickids, at the same moment.
    const person = personLead();
    const answers = await Promise.all([submit(person), submit({ ...person, clickid: `${person.clickid}-double` })]);
    const buyers = answers.map((answer) => soldOf(answer).buyerId);
    const racySales = await db.selectFrom('sales').select('lead_id').where('buyer_id', '=', ids.racy!).execute();
    expect(
      racySales,
      `sales to the buyer with a duplicate policy (answers went to ${buyers.join(', ')})`,
    ).to.have.length(1);
    expect(buyers).to.have.members([ids.racy, ids['racy-backup']]);
  });
});
