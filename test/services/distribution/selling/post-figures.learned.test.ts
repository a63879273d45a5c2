import { priceBandOf } from '@leadflow/distribution/src/selling/post-figures';
import { PostFiguresStore } from '@leadflow/distribution/src/selling/post-figures-store';
import { expect } from 'chai';
import { personLead, simBuyer, soldOf, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/*
 * The figures another instance reads from storage (at start and every 30 s) hold what the selling one
 * learned in memory: the posts' states and the prices they were offered at.
 */
describeEachDatabase('selling: learned post figures read back from storage', (database) => {
  const market = useMarket(database);

  it("knows each post's state and price band, as the instance that posted did", async () => {
    const { simulate, apply, submit, db } = market();
    const simulator = await simulate([{ path: '/fixed/post', kind: 'direct_post', price: { fixed: 20 } }]);
    const { fixed } = await apply([simBuyer('fixed', simulator.url, { post: '/fixed/post' })]);
    for (let i = 0; i < 6; i += 1) soldOf(await submit(personLead({ state: 'TX' })));

    const store = new PostFiguresStore(db);
    await store.load([fixed!]);
    const texas = store.figures(fixed!, 'TX');
    expect(texas.posts).to.equal(6);
    // simBuyer's direct posts are offered at $20.00: that band holds six accepted posts, $5.00's none.
    expect(store.figures(fixed!, 'TX', priceBandOf(2_000)).acceptRate).to.be.above(texas.acceptRate + 0.01);
    expect(store.figures(fixed!, 'TX', priceBandOf(500)).acceptRate).to.be.closeTo(texas.acceptRate, 1e-9);
  });
});
