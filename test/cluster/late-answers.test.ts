import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { testBuyer } from '../support/buyers.js';
import { reportFigures } from '../support/figures.js';
import { validLeadBody } from '../support/leads.js';
import { auditAtBuyers, type BuyerAudit } from './support/buyer-audit.js';
import { CrashStack, type Engine } from './support/crash-stack.js';
import { describeReply } from './support/http.js';
import { mariadbBinariesAvailable, needOrSkip } from './support/mariadb.js';
import type { ChildHandle } from './support/processes.js';
import { type Publication, RetryingPublisher, type RetryPolicy } from './support/publisher.js';
import { printOutputOnFailure } from './support/stack.js';
import { auditStore } from './support/store-audit.js';

/*
 * Late answers across a crash: posts held at a counting buyer past the sale's deadline (the publishers
 * are answered, the calls stay open until the buyer's own timeout), then the buyer accepts while the
 * distribution service is killed: before the answers arrive, or inside the sale that a late answer
 * records. The lead stays held or is sold once, never twice, counted at the buyer.
 */

/** The post timeout outlives the sale's deadline, and half of it (the least time a post goes out with) fits in it. */
const SETTINGS = { sellDeadlineMs: 3000, intakeDeadlineMs: 6000, reconcileIntervalMs: 300 };
const BUYER_TIMEOUT_MS = 5000;
const LEADS_PER_RUN = 3;
const HOOK_TIMEOUT_MS = 240_000;
const POLICY: RetryPolicy = {
  requestTimeoutMs: SETTINGS.intakeDeadlineMs + 10_000,
  giveUpAfterMs: 60_000,
  firstBackoffMs: 250,
  maxBackoffMs: 2000,
};

function countedBuyer(name: string, path: string, stack: CrashStack, tier: number) {
  return testBuyer(name, stack.buyer.url(path), {
    tier,
    integration: { timeoutMs: BUYER_TIMEOUT_MS },
    post: {
      url: stack.buyer.url(path),
      mapping: { leadId: 'leadId', attemptId: 'attemptId', clickid: 'clickid' },
      response: { format: 'json', accepted: { path: '$.accepted', equals: 'true' }, redirectUrl: '$.redirectUrl' },
    },
  });
}

for (const engine of ['sqlite', 'mariadb'] as const satisfies readonly Engine[]) {
  describe(`late answers across a crash [${engine}]: real processes, a counting buyer`, function () {
    this.timeout(HOOK_TIMEOUT_MS);
    const stack = new CrashStack(engine, SETTINGS);
    const buyerIds: Record<string, string> = {};
    let runs = 0;
    /** Each run's late buyer, on a path of its own: `/late-N` is `late-buyer-N`. */
    let latePath = '';
    const buyerIdOf = (path: string) =>
      buyerIds[path === '/next' ? 'next-buyer' : `late-buyer${path.slice(5)}`] ?? path;
    let publisher: { id: string; key: string };
    let retrying: RetryingPublisher;

    before(async function () {
      if (engine === 'mariadb') needOrSkip(this, mariadbBinariesAvailable(), 'mariadbd is not installed');
      await stack.start();
      stack.buyer.behave('/next', { kind: 'accept', delayMs: 0 });
      // A second buyer, a tier below, takes every lead: a lead wrongly offered again would show there.
      publisher = await stack.admin.createPublisher(`late-${engine}`, 100_000);
      retrying = new RetryingPublisher(() => stack.gateway!.baseUrl, publisher.key, POLICY);
      await stack.distribution!.stop();
    });
    afterEach(function () {
      printOutputOnFailure(this, () => stack.handles());
    });
    after(() => stack.stop());

    /**
     * Sends leads the buyer holds past the deadline; once every publisher has its answer (the posts
     * still open at the buyer), `meanwhile` runs; then a service without a crash setting sweeps, and is
     * left running for the audit.
     */
    const heldPastDeadline = async (
      env: Record<string, string>,
      meanwhile: (handle: ChildHandle) => Promise<void>,
    ): Promise<Publication[]> => {
      if (stack.distribution?.running) await stack.distribution.stop(15_000);
      const { handle, listening } = await stack.launch(`distribution (${JSON.stringify(env)})`, env);
      expect(await listening, handle.tail(15)).to.equal(true);
      // A new late buyer each run: the figures learned from the last run's posts, answered at the
      // deadline, would keep it from being posted within the deadline at all.
      runs += 1;
      latePath = `/late-${runs}`;
      stack.buyer.behave(latePath, { kind: 'hold' });
      Object.assign(
        buyerIds,
        await stack.admin.applyBuyers([
          countedBuyer(`late-buyer-${runs}`, latePath, stack, 1),
          countedBuyer('next-buyer', '/next', stack, 2),
        ]),
      );
      const publications = await Promise.all(
        Array.from({ length: LEADS_PER_RUN }, () => retrying.publish(validLeadBody())),
      );
      for (const publication of publications) {
        expect(publication.final?.status, describeReply(publication.replies.at(-1)!)).to.equal(200);
        expect(publication.final!.body, 'answered at the deadline, before the buyer').to.include({
          status: 'rejected',
        });
      }
      expect(stack.buyer.held(latePath), 'the posts still open at the buyer').to.have.length(LEADS_PER_RUN);
      await meanwhile(handle);
      const recovery = await stack.launch('distribution (recovery)', {});
      expect(await recovery.listening, recovery.handle.tail(15)).to.equal(true);
      await sleep(5 * SETTINGS.reconcileIntervalMs);
      return publications;
    };

    /**
     * The buyer's count and the store's, the publishers' retries of the same bodies answered with the
     * leads' outcomes now (sold once a late answer sold it); then the service stops.
     */
    const audit = async (publications: Publication[]): Promise<BuyerAudit> => {
      const leadIds = publications.map((publication) => String(publication.final!.body.leadId));
      const replays = new RetryingPublisher(() => stack.gateway!.baseUrl, publisher.key, POLICY);
      for (const publication of publications) await replays.publish(publication.body);
      await stack.distribution!.stop(15_000);
      const result = await auditAtBuyers(stack.database, stack.buyer.acceptances, buyerIdOf, leadIds);
      const posted = stack.buyer.received.filter((post) => leadIds.includes(String(post.leadId)));
      expect(
        posted.map((post) => post.path),
        'each lead posted once, to the late buyer only',
      ).to.deep.equal(leadIds.map(() => latePath));
      expect(result.acceptedTwice, 'leads accepted more than once at the buyers').to.deep.equal([]);
      expect(result.problems).to.deep.equal([]);
      expect(result.inSale + result.inUnconfirmed).to.equal(result.acceptances);
      const store = await auditStore(stack.database, [publisher.id], replays.finalAnswers());
      expect(store.problems).to.deep.equal([]);
      expect(store.soldTwice).to.equal(0);
      expect(store.ledgerEntries).to.equal(3 * store.sales);
      return result;
    };

    it('sells each lead once from its late answer while the service runs', async () => {
      const held = await heldPastDeadline({}, async (handle) => {
        stack.buyer.release('accept', latePath);
        await sleep(1000);
        await handle.stop(15_000);
      });
      const result = await audit(held);
      expect(result.inSale, 'sold by their late answers').to.equal(LEADS_PER_RUN);
      reportFigures(`      figures [${engine}]: late answers, no crash: sold ${result.inSale} of ${LEADS_PER_RUN}`);
    });

    it('keeps the leads held when the service is killed before their late answers arrive', async () => {
      const held = await heldPastDeadline({}, async (handle) => {
        await handle.kill();
        stack.buyer.release('accept', latePath);
      });
      const result = await audit(held);
      expect(result.inUnconfirmed, 'accepted into dead connections: held, for the buyer or an operator').to.equal(
        LEADS_PER_RUN,
      );
    });

    it('sells a lead once or keeps it held when the service is killed inside the sale a late answer records', async () => {
      let exit: Awaited<ChildHandle['exited']> | undefined;
      const held = await heldPastDeadline({ LEADFLOW_CRASH_AT: 'in-record:kill' }, async (handle) => {
        stack.buyer.release('accept', latePath);
        exit = await Promise.race([handle.exited, sleep(BUYER_TIMEOUT_MS * 2).then(() => undefined)]);
        if (!exit) await handle.kill();
      });
      expect(exit?.signal, 'the service died in the late sale').to.equal('SIGKILL');
      const result = await audit(held);
      const leadIds = held.map((publication) => String(publication.final!.body.leadId));
      const statuses = await stack.database.rows<{ status: string }>(
        `SELECT status FROM leads WHERE id IN (${leadIds.map(() => '?').join(', ')})`,
        leadIds,
      );
      const sold = statuses.filter((lead) => lead.status === 'sold').length;
      const stillHeld = statuses.filter((lead) => lead.status === 'unconfirmed').length;
      expect(sold + stillHeld, 'each lead sold once to its late buyer, or held').to.equal(LEADS_PER_RUN);
      reportFigures(
        `      figures [${engine}]: killed in a late sale: sold ${sold}, held ${stillHeld}, buyer-side duplicates ${result.acceptedTwice.length}`,
      );
    });
  });
}
