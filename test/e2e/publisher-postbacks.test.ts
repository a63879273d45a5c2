import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type ServiceError, status } from '@grpc/grpc-js';
import { PostbackState } from '@leadflow/proto/leadflow/admin/v1/postbacks';
import { createLogger } from '@leadflow/service-kit/logger';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../support/distribution.js';
import { bearer, call } from '../support/grpc.js';
import { documentedVerifier, PostbackReceiver } from '../support/postback-receiver.js';
import { stackCli } from '../support/run-leadflow.js';
import { personLead } from '../support/selling.js';
import { startTestStack, type TestStack } from '../support/stack.js';
import { describeEachDatabase } from '../support/test-database.js';
import { waitUntil } from '../support/wait-until.js';

/*
 * Publishers are told when a held lead settles: a real receiver over HTTP gets events signed as
 * docs/http-api.md says, checked with the snippet the docs give; a receiver that refuses connections
 * gets every event once it is back; two instances on one MariaDB deliver each event once.
 */

const PERSONAL_FIELDS = ['ssn', 'email', 'firstName', 'lastName', 'dob', 'bankAccountNumber', 'cellPhone', 'address'];

function expectNoPersonalField(text: string, leads: Record<string, unknown>[]): void {
  for (const lead of leads)
    for (const field of PERSONAL_FIELDS) expect(text, field).not.to.include(lead[field] as string);
}

/**
 * Makes the buyer that leads are held for: one that never answers its posts. Each call pauses the previous
 * one and applies a new one, since five timeouts in a row open a buyer's circuit (its leads would then be
 * rejected, not held).
 */
function heldBuyers(distribution: () => TestDistribution, buyer: () => TestBuyerServer) {
  let count = 0;
  let previous: string | undefined;
  return async () => {
    const running = distribution();
    if (previous)
      await call(
        running.admin.setBuyerActive.bind(running.admin),
        { buyer: previous, active: false },
        bearer(running.service.adminToken),
      );
    const name = `held-buyer-${++count}`;
    const ids = await running.applyBuyers([testBuyer(name, buyer().url('/hang'), { integration: { timeoutMs: 300 } })]);
    previous = ids[name];
  };
}

/** A held lead: its buyer never answers the post, so the lead waits for the buyer's confirmation. */
async function heldLead(submit: (body: Record<string, unknown>) => Promise<string>) {
  const body = personLead();
  return { body, leadId: await submit(body) };
}

function admin(distribution: TestDistribution) {
  const { admin: client, service } = distribution;
  const auth = () => bearer(service.adminToken);
  return {
    resolve: (leadId: string, sold: boolean) =>
      call(client.resolveLead.bind(client), { leadId, sold, chargeCents: 0 }, auth()),
    setPostback: (publisherId: string, url: string, local: boolean) =>
      call(client.setPublisherPostback.bind(client), { publisherId, url, local }, auth()),
    secret: async (publisherId: string) =>
      (await call(client.getPublisherPostback.bind(client), { publisherId }, auth())).postback!.signingSecret,
    deliveries: async (publisherId: string) =>
      (await call(client.listPostbackDeliveries.bind(client), { publisherId, pageSize: 0 }, auth())).deliveries,
  };
}

/** This stack's retry horizon, shorter than the default day: a test of the setting, not only of the default. */
const RETRY_HOURS = 2;

describeEachDatabase("publishers are told of their leads' outcomes after the answer", (database) => {
  let stack: TestStack;
  let buyer: TestBuyerServer;
  let receiver: PostbackReceiver;
  const logLines: string[] = [];

  before(async () => {
    stack = await startTestStack(database(), {
      distributionEnv: { LEADFLOW_POSTBACK_RETRY_HOURS: String(RETRY_HOURS) },
      distributionLogger: createLogger('distribution', 'debug', { write: (line: string) => logLines.push(line) }),
    });
    buyer = await startBuyerServer();
    buyer.behave('/hang', { kind: 'hang' });
    await stack.distribution.applyBuyers([
      testBuyer('held-buyer', buyer.url('/hang'), { integration: { timeoutMs: 300 } }),
    ]);
  });
  after(async () => {
    await buyer?.close();
    await stack?.close();
  });
  const nextHeldBuyer = heldBuyers(
    () => stack.distribution,
    () => buyer,
  );
  beforeEach(async () => {
    await nextHeldBuyer();
    receiver = new PostbackReceiver();
    await receiver.start();
  });
  afterEach(() => receiver.stop());

  async function publisherWithPostback() {
    const publisher = await stack.distribution.createPublisher();
    await admin(stack.distribution).setPostback(publisher.id, receiver.url, true);
    const submit = async (body: Record<string, unknown>) => {
      const answer = await stack.post(publisher.key, body);
      expect(answer.body.reason).to.match(/held until the buyer confirms/);
      return answer.body.leadId as string;
    };
    return { ...publisher, submit, secret: await admin(stack.distribution).secret(publisher.id) };
  }

  it('posts a signed event, verified by the docs snippet, when a held lead is resolved sold or not sold', async () => {
    const verify = await documentedVerifier();
    const publisher = await publisherWithPostback();
    const sold = await heldLead(publisher.submit);
    const declined = await heldLead(publisher.submit);
    expect(receiver.received, 'nothing is told at the answer').to.have.length(0);

    await admin(stack.distribution).resolve(sold.leadId, true);
    await admin(stack.distribution).resolve(declined.leadId, false);
    await waitUntil('both events delivered', () => receiver.events().length === 2);

    for (const delivery of receiver.received) {
      expect(verify(delivery.rawBody, delivery.signature, publisher.secret), 'signature verifies').to.equal(true);
      expect(verify(delivery.rawBody, delivery.signature, 'whsec_another'), 'not under another secret').to.equal(false);
      expect(verify(`${delivery.rawBody} `, delivery.signature, publisher.secret), 'not another body').to.equal(false);
      expect(delivery.eventId).to.equal(JSON.parse(delivery.rawBody).id);
    }
    const byLead = Object.fromEntries(receiver.events().map((event) => [event.leadId, event]));
    const soldEvent = byLead[sold.leadId]!;
    expect(soldEvent).to.include({
      type: 'lead.sold',
      status: 'sold',
      clickid: sold.body.clickid,
      price: 16,
      test: false,
    });
    expect(soldEvent.buyerId).to.be.a('string');
    expect(Date.parse(soldEvent.time as string)).to.be.closeTo(Date.now(), 60_000);
    expect(byLead[declined.leadId]).to.include({
      type: 'lead.rejected',
      status: 'rejected',
      clickid: declined.body.clickid,
      price: 0,
      reason: 'No buyer accepted the lead',
    });

    const deliveries = await admin(stack.distribution).deliveries(publisher.id);
    expect(deliveries.map((delivery) => delivery.state)).to.deep.equal([
      PostbackState.POSTBACK_STATE_DELIVERED,
      PostbackState.POSTBACK_STATE_DELIVERED,
    ]);
    expectNoPersonalField(receiver.received.map((delivery) => delivery.rawBody).join('\n') + logLines.join(''), [
      sold.body,
      declined.body,
    ]);
  });

  it('gets every event to a receiver that refused connections for a while, once it is back, with the same ids', async () => {
    const publisher = await publisherWithPostback();
    const leads = [
      await heldLead(publisher.submit),
      await heldLead(publisher.submit),
      await heldLead(publisher.submit),
    ];
    await receiver.stop();
    for (const [index, lead] of leads.entries()) await admin(stack.distribution).resolve(lead.leadId, index !== 1);
    // A try counts from its claim: an event is waiting, its tries ended, once its next try is ahead.
    await waitUntil('every event tried at least twice, and none being tried', async () => {
      const deliveries = await admin(stack.distribution).deliveries(publisher.id);
      return (
        deliveries.length === 3 &&
        deliveries.every(
          (delivery) => delivery.attempts >= 2 && (delivery.nextAttemptTime?.getTime() ?? 0) > Date.now(),
        )
      );
    });
    const refused = await admin(stack.distribution).deliveries(publisher.id);
    expect(refused.map((delivery) => [delivery.state, delivery.lastError])).to.deep.equal(
      refused.map(() => [PostbackState.POSTBACK_STATE_PENDING, 'connection_refused']),
    );

    await receiver.start();
    await waitUntil('every event delivered', async () =>
      (await admin(stack.distribution).deliveries(publisher.id)).every(
        (delivery) => delivery.state === PostbackState.POSTBACK_STATE_DELIVERED,
      ),
    );
    expect(receiver.events().map((event) => event.leadId)).to.have.members(leads.map((lead) => lead.leadId));
    const bodiesById = new Map<string, Set<string>>();
    for (const { eventId, rawBody } of receiver.received)
      bodiesById.set(eventId!, (bodiesById.get(eventId!) ?? new Set()).add(rawBody));
    expect(
      [...bodiesById.values()].map((bodies) => bodies.size),
      'an id is always the same event',
    ).to.deep.equal([1, 1, 1]);

    const shown = await stackCli(stack.distribution).json('publisher', 'postbacks', publisher.id);
    expect(shown.deliveries).to.have.length(3);
    for (const delivery of shown.deliveries) {
      expect(delivery).to.include({ state: 'POSTBACK_STATE_DELIVERED' });
      expect(delivery.attempts).to.be.at.least(3);
    }
  });

  it('gives an event up, marked failed, once it has been retried for LEADFLOW_POSTBACK_RETRY_HOURS', async () => {
    const publisher = await publisherWithPostback();
    const lead = await heldLead(publisher.submit);
    await receiver.stop();
    await admin(stack.distribution).resolve(lead.leadId, true);
    await waitUntil('the first try refused and recorded', async () => {
      const [delivery] = await admin(stack.distribution).deliveries(publisher.id);
      return delivery?.attempts === 1 && delivery.lastError !== '';
    });
    // Past this stack's horizon, well within the default day's.
    const horizonAgo = Date.now() - RETRY_HOURS * 60 * 60_000 - 1;
    await stack.distribution.service.db
      .updateTable('publisher_events')
      .set({ created_at: horizonAgo, next_attempt_at: 0 })
      .where('lead_id', '=', lead.leadId)
      .execute();
    await waitUntil('the event given up', async () => {
      const [delivery] = await admin(stack.distribution).deliveries(publisher.id);
      return delivery?.state === PostbackState.POSTBACK_STATE_FAILED;
    });
    const metrics = await (await fetch(`http://127.0.0.1:${stack.distribution.service.metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^leadflow_postback_tries_total\{outcome="failed"\} [1-9]/m);
    const cli = await stackCli(stack.distribution).leadflow(['publisher', 'postbacks', publisher.id]);
    expect(cli.stdout).to.match(/lead\.sold\s+\S+\s+failed\s+2\s+connection_refused/);
  });

  it('delivers an event again, same id, once the lease of an instance that died mid-try has lapsed', async () => {
    const publisher = await publisherWithPostback();
    const lead = await heldLead(publisher.submit);
    await receiver.stop();
    await admin(stack.distribution).resolve(lead.leadId, true);
    await waitUntil('the first try refused and recorded', async () => {
      const [delivery] = await admin(stack.distribution).deliveries(publisher.id);
      return delivery?.attempts === 1 && delivery.lastError !== '';
    });
    // As an instance leaves an event it claimed and then died posting: leased to it, due, never recorded.
    const events = stack.distribution.service.db.updateTable('publisher_events').where('lead_id', '=', lead.leadId);
    await events.set({ lease_token: 'lse_dead', lease_until: Date.now() + 60_000, next_attempt_at: 0 }).execute();
    await receiver.start();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.received, 'not taken from a live lease').to.have.length(0);

    await events.set({ lease_until: Date.now() - 1 }).execute();
    await waitUntil('delivered after the lease lapsed', () => receiver.received.length > 0);
    const [delivery] = await admin(stack.distribution).deliveries(publisher.id);
    expect(JSON.parse(receiver.received[0]!.rawBody).id).to.equal(delivery!.eventId);
    await waitUntil(
      'recorded delivered',
      async () =>
        (await admin(stack.distribution).deliveries(publisher.id))[0]?.state === PostbackState.POSTBACK_STATE_DELIVERED,
    );
  });

  it('refuses a postback URL a buyer not marked local could not be called at, and allows it when local', async () => {
    const publisher = await stack.distribution.createPublisher();
    for (const url of [
      'http://203.0.114.1/events',
      'https://127.0.0.1/events',
      'https://10.1.2.3/x',
      'ftp://a.example/',
      'https://user:pw@a.example/',
    ]) {
      const refusal = await admin(stack.distribution)
        .setPostback(publisher.id, url, false)
        .then(
          () => undefined,
          (error: ServiceError) => error,
        );
      expect(refusal?.code, url).to.equal(status.INVALID_ARGUMENT);
    }
    const set = await admin(stack.distribution).setPostback(publisher.id, 'https://hooks.example.com/leadflow', false);
    expect(set.postback).to.include({ url: 'https://hooks.example.com/leadflow', local: false });
    expect(set.postback!.signingSecret).to.match(/^whsec_[A-Za-z0-9_-]{43}$/);
    const local = await admin(stack.distribution).setPostback(publisher.id, 'http://127.0.0.1:9/events', true);
    expect(local.postback).to.include({ local: true, signingSecret: set.postback!.signingSecret });
  });
});

describeEachDatabase(
  'two distribution instances on one database deliver each event once',
  (database) => {
    let first: TestDistribution;
    let second: TestDistribution;
    let secondDir: string;
    let buyer: TestBuyerServer;
    // Each delivery stays in flight longer than a sweep interval: the other instance sweeps meanwhile.
    const receiver = new PostbackReceiver(800);

    before(async () => {
      first = await startTestDistribution(database());
      secondDir = await mkdtemp(path.join(tmpdir(), 'leadflow-second-'));
      second = await startTestDistribution(database(), { env: { LEADFLOW_DATA_DIR: secondDir } });
      buyer = await startBuyerServer();
      buyer.behave('/hang', { kind: 'hang' });
      await receiver.start();
    });
    after(async () => {
      await receiver.stop();
      await buyer?.close();
      await second?.close();
      await first?.close();
      await rm(secondDir, { recursive: true, force: true });
    });

    const nextHeldBuyer = heldBuyers(
      () => first,
      () => buyer,
    );

    it('each event reaches the receiver exactly once', async () => {
      const publisher = await first.createPublisher();
      await admin(first).setPostback(publisher.id, receiver.url, true);
      const leadIds: string[] = [];
      for (let n = 0; n < 12; n++) {
        if (n % 4 === 0) await nextHeldBuyer();
        const answer = await first.submit(publisher.key, personLead());
        if (answer.outcome?.$case !== 'unconfirmed')
          throw new Error(`expected a held lead, got ${answer.outcome?.$case}`);
        leadIds.push(answer.outcome.value.leadId);
      }
      await Promise.all(leadIds.map((leadId, n) => admin(n % 2 === 0 ? first : second).resolve(leadId, n % 3 !== 0)));
      await waitUntil('every event delivered', async () =>
        (await admin(second).deliveries(publisher.id)).every(
          (delivery) => delivery.state === PostbackState.POSTBACK_STATE_DELIVERED,
        ),
      );
      expect(receiver.received.map((delivery) => JSON.parse(delivery.rawBody).leadId)).to.have.members(leadIds);
      expect(receiver.received, 'no event delivered twice').to.have.length(leadIds.length);
    });
  },
  ['mysql'],
);
