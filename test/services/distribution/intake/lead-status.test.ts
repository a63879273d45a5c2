import { expect } from 'chai';
import { bearer, call } from '../../../support/grpc.js';
import { PostbackReceiver } from '../../../support/postback-receiver.js';
import { personLead, simBuyer, soldOf, useMarket } from '../../../support/selling.js';
import { describeEachDatabase } from '../../../support/test-database.js';
import { waitUntil } from '../../../support/wait-until.js';

describeEachDatabase('GetLeadStatus: a lead by its clickid, its outcome now', (database) => {
  const market = useMarket(database);

  it("answers a returned lead returned, in the terms of the publisher's postback", async () => {
    const m = market();
    const auth = () => bearer(m.stack.service.adminToken);
    const receiver = new PostbackReceiver();
    await receiver.start();
    try {
      await call(
        m.stack.admin.setPublisherPostback.bind(m.stack.admin),
        { publisherId: m.publisherId, url: receiver.url, local: true },
        auth(),
      );
      // Half of the payout is clawed back, so what the return takes back is not the sale's price.
      await call(
        m.stack.admin.setPublisherClawback.bind(m.stack.admin),
        { publisherId: m.publisherId, clawbackBps: 5000 },
        auth(),
      );
      const simulator = await m.simulate([{ path: '/post', kind: 'direct_post', price: { fixed: 1 } }]);
      const ids = await m.apply([
        simBuyer('returning-lender', simulator.url, {
          post: '/post',
          pricing: { type: 'fixed', price: '40.00' },
          returns: { windowDays: 7, reasons: ['fraud'] },
        }),
      ]);
      const lead = personLead();
      const sold = soldOf(await m.submit(lead));
      const statusOf = (clickid: string) =>
        call(m.stack.client.getLeadStatus.bind(m.stack.client), { webmasterKey: m.key, clickid });

      expect((await statusOf(lead.clickid as string)).outcome).to.deep.equal({ $case: 'sold', value: sold });

      await call(
        m.stack.admin.returnLead.bind(m.stack.admin),
        {
          requestId: `status-${sold.leadId}`,
          leadId: sold.leadId,
          clickid: '',
          buyer: '',
          reason: 'fraud',
          note: '',
          creditCents: 0,
          dryRun: false,
        },
        auth(),
      );
      await waitUntil('the return announced', () => receiver.events().length === 1);
      const [event] = receiver.events();

      const returned = (await statusOf(lead.clickid as string)).outcome;
      expect(returned).to.deep.equal({
        $case: 'returned',
        value: {
          leadId: sold.leadId,
          clawbackCents: sold.payoutCents / 2,
          buyerId: ids['returning-lender'],
          reason: 'fraud',
        },
      });
      expect(event).to.include({
        status: 'returned',
        leadId: sold.leadId,
        price: sold.payoutCents / 2 / 100,
        buyerId: ids['returning-lender'],
        reason: 'fraud',
      });
    } finally {
      await receiver.stop();
    }
  });
});
