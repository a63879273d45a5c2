import { createDatabase, type Db, migrateToLatest } from '@leadflow/distribution/src/db/database';
import { DistributionMetrics } from '@leadflow/distribution/src/observability/metrics';
import { insertEvent, insertPostback } from '@leadflow/distribution/src/postbacks/postback.repository';
import { PostbackWorker } from '@leadflow/distribution/src/postbacks/postback-worker';
import { generateSigningSecret } from '@leadflow/distribution/src/postbacks/publisher-event';
import { loadDistributionConfig } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { testKeyRing } from '../../../support/key-ring.js';
import { type LocalServer, startLocalServer } from '../../../support/local-server.js';
import { sampled } from '../../../support/metrics-text.js';
import { describeEachDatabase } from '../../../support/test-database.js';

/*
 * What the delivery worker tells the metrics: each try by outcome, and the events still to deliver with the
 * age of the oldest, so that a publisher's receiver answering 500 shows before its events are given up.
 */

const HOUR_MS = 60 * 60_000;
/** The workers here give an event up a day after it was written, as the service does by default. */
const GIVE_UP_AFTER_MS = 24 * HOUR_MS;

describeEachDatabase("the postback worker's metrics: failing and backlogged deliveries", (database) => {
  let db: Db;
  let receiver: LocalServer;
  let answer = 500;
  const keyRing = testKeyRing();

  before(async () => {
    db = createDatabase(loadDistributionConfig(database().env));
    await migrateToLatest(db, keyRing);
    receiver = await startLocalServer((_request, response) => response.writeHead(answer).end());
  });
  after(async () => {
    await receiver?.close();
    await db?.destroy();
  });

  function worker(metrics: DistributionMetrics): PostbackWorker {
    return new PostbackWorker({
      db,
      cipher: keyRing.cipher,
      logger: createLogger('test', 'silent'),
      metrics,
      intervalMs: 60_000,
      timeoutMs: 2_000,
      giveUpAfterMs: GIVE_UP_AFTER_MS,
    });
  }

  /** A publisher whose postback URL is the receiver's `/name`, with one event written at `createdAt`; its id. */
  async function eventOf(name: string, createdAt: number): Promise<string> {
    const publisherId = `pub_${name}`;
    const secret = keyRing.cipher.encrypt(generateSigningSecret());
    const postback = { publisherId, url: receiver.url(`/${name}`), local: true, signingSecret: secret };
    await insertPostback(db, postback, Date.now());
    const id = `evt_${name}`;
    const event = { id, publisherId, leadId: `lead_${name}`, type: 'lead.sold', body: JSON.stringify({ id }) };
    await insertEvent(db, event, createdAt);
    return id;
  }

  const triesAt = (name: string) => receiver.requests.filter((request) => request.path === `/${name}`).length;

  it('counts a try answered 500 as a retry, and shows the event pending with its age until it is delivered', async () => {
    const id = await eventOf('retried', Date.now() - 2 * HOUR_MS);
    const metrics = new DistributionMetrics(() => []);
    const text = () => metrics.registry.metrics();

    answer = 500;
    await worker(metrics).sweep();
    expect(triesAt('retried')).to.equal(1);
    expect(sampled(await text(), 'leadflow_postback_tries_total', { outcome: 'retry' })).to.equal(1);
    expect(sampled(await text(), 'leadflow_postback_tries_total', { outcome: 'delivered' })).to.equal(undefined);
    expect(sampled(await text(), 'leadflow_postback_events_pending')).to.equal(1);
    expect(sampled(await text(), 'leadflow_postback_oldest_pending_age_seconds'))
      .to.be.at.least(2 * 3600)
      .and.below(3 * 3600);

    answer = 204;
    await db.updateTable('publisher_events').set({ next_attempt_at: 0 }).where('id', '=', id).execute();
    await worker(metrics).sweep();
    expect(sampled(await text(), 'leadflow_postback_tries_total', { outcome: 'delivered' })).to.equal(1);
    expect(sampled(await text(), 'leadflow_postback_events_pending')).to.equal(0);
    expect(sampled(await text(), 'leadflow_postback_oldest_pending_age_seconds')).to.equal(0);
  });

  it('counts a try answered 500 past the retry horizon as failed, and leaves nothing pending', async () => {
    const id = await eventOf('given-up', Date.now() - GIVE_UP_AFTER_MS - HOUR_MS);
    const metrics = new DistributionMetrics(() => []);

    answer = 500;
    await worker(metrics).sweep();
    const text = await metrics.registry.metrics();
    expect(triesAt('given-up')).to.equal(1);
    expect(sampled(text, 'leadflow_postback_tries_total', { outcome: 'failed' })).to.equal(1);
    expect(sampled(text, 'leadflow_postback_tries_total', { outcome: 'retry' })).to.equal(undefined);
    expect(sampled(text, 'leadflow_postback_events_pending')).to.equal(0);
    expect(sampled(text, 'leadflow_postback_oldest_pending_age_seconds')).to.equal(0);
    const stored = await db
      .selectFrom('publisher_events')
      .select(['state', 'last_error'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(stored).to.deep.equal({ state: 'failed', last_error: 'HTTP 500' });
  });
});
