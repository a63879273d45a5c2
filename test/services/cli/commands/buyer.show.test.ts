import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { validLeadBody } from '../../../support/leads.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { startTestStack, type TestStack } from '../../../support/stack.js';
import { describeEachDatabase } from '../../../support/test-database.js';

const percent = (share: number) => `${Math.round(share * 100)}%`;

describeEachDatabase(
  'leadflow buyer show: the learned accept rate with what it rests on',
  (database) => {
    let buyers: TestBuyerServer;
    let stack: TestStack;
    let cli: StackCli;

    before(async function () {
      this.timeout(30_000);
      buyers = await startBuyerServer();
      buyers.behave('/takes-all', { kind: 'accept' });
      stack = await startTestStack(database());
      cli = stackCli(stack.distribution);
      await stack.distribution.applyBuyers([testBuyer('takes-all', buyers.url('/takes-all'))]);
    });
    after(async () => {
      await stack?.close();
      await buyers?.close();
    });

    it('names the prior a new buyer is taken to accept at, before any post', async () => {
      const text = (await cli.leadflow(['buyer', 'show', 'takes-all'])).stdout;
      expect(text).to.match(/^learned:\s+no live posts yet \(taken to accept 50%, answering within its timeout\)$/m);
    });

    it('after one accepted post, shows the prior and the one post the rate rests on, not a bare rate', async () => {
      const { key } = await stack.distribution.createPublisher();
      expect((await stack.post(key, validLeadBody())).body.status).to.equal('sold');

      const { learned } = (await cli.json('buyer', 'show', 'takes-all')).summary;
      expect(learned).to.include({ posts: 1, answeredPosts: 1, acceptedPosts: 1 });
      expect(learned.p50Latency, 'a Duration as the proto JSON mapping writes it').to.match(/^\d+(\.\d{3,9})?s$/);
      // One post weighs little against the prior: the rate is between the two, and the text says so.
      expect(learned.acceptRate).to.be.above(learned.priorAcceptRate).and.below(1);
      const text = (await cli.leadflow(['buyer', 'show', 'takes-all'])).stdout;
      expect(text).to.match(
        new RegExp(
          `^learned:\\s+${percent(learned.acceptRate)} accepted \\(prior ${percent(learned.priorAcceptRate)}, 1 of 1 answered post\\), 0% unanswered, post p50 \\d+ ms, p90 \\d+ ms \\(1 recent post\\)$`,
          'm',
        ),
      );
    });
  },
  ['sqlite'],
);
