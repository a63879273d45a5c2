import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { createConnection, type RowDataPacket } from 'mysql2/promise';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { reportFigures } from '../support/figures.js';
import { validLeadBody } from '../support/leads.js';
import { freePort, tcpAccepts } from '../support/ports.js';
import { REDIS_URL, RedisServerProcess, requireSharedRedis, skipUnlessAvailable } from '../support/redis.js';
import { productionSecretsEnv } from '../support/test-database.js';
import { waitUntil } from '../support/wait-until.js';
import { Admin } from './support/admin.js';
import { auditAtBuyers } from './support/buyer-audit.js';
import { type CountingBuyer, startCountingBuyer } from './support/counting-buyer.js';
import { type GatedBuyer, startGatedBuyer } from './support/gated-buyer.js';
import { countBy, describeReply, type IntakeReply, inPool, postLead } from './support/http.js';
import {
  createClusterDatabase,
  type InspectedDatabase,
  MYSQL_SERVER_URL,
  mariadbBinariesAvailable,
  needOrSkip,
  OwnMariaDb,
  sharedMysqlReachable,
} from './support/mariadb.js';
import {
  type ChildHandle,
  cleanUp,
  type DistributionProcess,
  type GatewayProcess,
  startDistributionProcess,
  startGatewayProcess,
  tempDir,
} from './support/processes.js';
import { failureLines, logLinesWith, printOutputOnFailure } from './support/stack.js';
import { auditStore } from './support/store-audit.js';

type DroppableDatabase = InspectedDatabase & { drop(): Promise<void> };

/** pino levels: error and fatal. */
const ERROR_LEVEL = 50;

/** One distribution service and one gateway as processes on a fresh database of the shared MariaDB. */
class Pair {
  database: DroppableDatabase | undefined;
  distribution: DistributionProcess | undefined;
  gateway: GatewayProcess | undefined;
  admin: Admin | undefined;
  private dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
  readonly secrets = productionSecretsEnv();

  handles() {
    return [this.distribution?.handle, this.gateway?.handle];
  }

  async start(
    options: { distributionEnv?: Record<string, string>; gatewayEnv?: Record<string, string> } = {},
  ): Promise<void> {
    this.database = await createClusterDatabase();
    this.dataDir = await tempDir('lf-faults-');
    this.distribution = await startDistributionProcess('distribution', {
      ...this.secrets,
      DATABASE_URL: this.database.url,
      LEADFLOW_DATA_DIR: this.dataDir.path,
      LEADFLOW_LOG_LEVEL: 'info',
      ...options.distributionEnv,
    });
    this.gateway = await startGatewayProcess('gateway', this.distribution.address, {
      LEADFLOW_LOG_LEVEL: 'info',
      REDIS_URL: '',
      ...options.gatewayEnv,
    });
    this.admin = new Admin(this.distribution.address, this.secrets.LEADFLOW_ADMIN_TOKEN!);
  }

  async stop(): Promise<void> {
    this.admin?.close();
    await cleanUp([
      () => this.gateway?.handle.stop(),
      () => this.distribution?.handle.stop(),
      () => this.database?.drop(),
      () => this.dataDir?.remove(),
    ]);
  }
}

async function needSharedMysql(context: Mocha.Context): Promise<void> {
  needOrSkip(context, await sharedMysqlReachable(), `no MariaDB/MySQL at ${new URL(MYSQL_SERVER_URL).host}`);
}

interface InstanceOptions {
  crashAt?: string;
  sellDeadlineMs?: number;
  intakeDeadlineMs?: number;
}

describe('faults', function () {
  this.timeout(300_000);

  describe('SIGTERM drains the gateway and the distribution service', () => {
    const pair = new Pair();
    let buyer: GatedBuyer | undefined;

    before(async function () {
      await needSharedMysql(this);
      // As in production: the gateway holds a Redis connection that it must close on the way down.
      await requireSharedRedis(this);
      await pair.start({ gatewayEnv: { REDIS_URL } });
    });
    afterEach(function () {
      printOutputOnFailure(this, () => pair.handles());
    });
    after(async () => {
      buyer?.open();
      await cleanUp([() => buyer?.close(), () => pair.stop()]);
    });

    it('finishes the leads in flight with 200, refuses new ones with a retryable answer, and both processes exit 0', async () => {
      const { admin, gateway, distribution, database } = pair;
      // At least 1.5 s per lead, and held until the test opens the gate.
      buyer = await startGatedBuyer(1500);
      const buyerIds = await admin!.applyBuyers([
        testBuyer('slow-buyer', buyer.url, { integration: { timeoutMs: 6000 } }),
      ]);
      const publisher = await admin!.createPublisher('drain', 1000);

      const inFlightBodies = Array.from({ length: 6 }, () => validLeadBody());
      const inFlight = inFlightBodies.map((body) => postLead(gateway!.baseUrl, publisher.key, body, 60_000));
      await waitUntil(
        'every lead in flight at the buyer',
        () => buyer!.received.length === inFlightBodies.length,
        60_000,
        20,
      );

      // 1. The distribution service drains: the gateway, still up, has nowhere to send a new lead.
      distribution!.handle.signal('SIGTERM');
      await waitUntil(
        'the distribution service to start draining',
        () => logLinesWith(distribution!.handle, 'draining').length > 0,
        30_000,
        20,
      );
      await waitUntil(
        'the distribution service to stop accepting connections',
        async () => !(await tcpAccepts(distribution!.port)),
        30_000,
        20,
      );
      const duringServiceDrain = await postLead(gateway!.baseUrl, publisher.key, validLeadBody(), 30_000);

      // 2. The gateway drains: it stops accepting connections.
      gateway!.handle.signal('SIGTERM');
      await waitUntil(
        'the gateway to start draining',
        () => logLinesWith(gateway!.handle, 'shutting down').length > 0,
        30_000,
        20,
      );
      await waitUntil(
        'the gateway to stop accepting connections',
        async () => !(await tcpAccepts(gateway!.port)),
        30_000,
        20,
      );
      const duringGatewayDrain = await postLead(gateway!.baseUrl, publisher.key, validLeadBody(), 30_000);
      const stillInFlight = buyer.received.length === inFlightBodies.length;

      buyer.open();
      const finished = await Promise.all(inFlight);
      const [gatewayExit, distributionExit] = await Promise.all([gateway!.handle.exited, distribution!.handle.exited]);
      reportFigures(
        `      drain: ${inFlightBodies.length} in flight -> ${JSON.stringify(countBy(finished, (reply) => reply.error ?? reply.status))}; ` +
          `new lead while the service drains -> ${describeReply(duringServiceDrain)}; new lead while the gateway drains -> ${describeReply(duringGatewayDrain)}; ` +
          `exits: gateway ${JSON.stringify(gatewayExit)}, distribution ${JSON.stringify(distributionExit)}`,
      );

      expect(stillInFlight, 'no lead finished before the gate opened').to.equal(true);
      for (const reply of finished) {
        expect(reply.status, describeReply(reply)).to.equal(200);
        expect(reply.body).to.include({ status: 'sold', buyerId: buyerIds['slow-buyer'] });
      }
      // A new lead while only the service drains: the gateway answers 503 with Retry-After.
      expect(duringServiceDrain.status, describeReply(duringServiceDrain)).to.equal(503);
      expect(duringServiceDrain.body).to.deep.equal({
        status: 'error',
        message: 'Service temporarily unavailable; retry with backoff',
      });
      expect(duringServiceDrain.headers['retry-after']).to.equal('1');
      // A new lead once the gateway drains: the connection is refused (a client or load balancer retries elsewhere).
      expect(duringGatewayDrain.error, describeReply(duringGatewayDrain)).to.equal('ECONNREFUSED');

      expect(gatewayExit).to.deep.equal({ code: 0, signal: null });
      expect(distributionExit).to.deep.equal({ code: 0, signal: null });
      // Nothing went wrong on the way down: the only error line is the gateway's for the 503 it was made to give.
      const errors = (handle: ChildHandle) => handle.logLines().filter((line) => Number(line.level) >= ERROR_LEVEL);
      expect(errors(distribution!.handle), 'distribution logged errors').to.deep.equal([]);
      expect(
        errors(gateway!.handle).map((line) => line.code),
        'gateway logged errors',
      ).to.deep.equal(['SERVICE_UNAVAILABLE']);

      const audit = await auditStore(
        database!,
        [publisher.id],
        new Map(inFlightBodies.map((body, index) => [body.clickid as string, finished[index]!])),
      );
      expect(audit.problems).to.deep.equal([]);
      expect(audit.byStatus).to.deep.equal({ sold: inFlightBodies.length });
      expect(audit.sales).to.equal(inFlightBodies.length);
      expect(audit.ledgerEntries).to.equal(3 * inFlightBodies.length);
    });
  });

  describe('MySQL killed and restarted under load (own MariaDB; two gateways, two distribution services)', () => {
    const INTAKE_DEADLINE_MS = 6000;
    const SELL_DEADLINE_MS = 4000;
    const LEADS = 300;
    const IN_FLIGHT = 6;
    const KILL_AFTER_ANSWERS = 60;
    const OUTAGE_MS = 4000;
    /** Lead i is sent no earlier than i * SPACING_MS after the start: 300 leads over ~20 s, outage or not. */
    const SPACING_MS = 67;
    /** As the 503's Retry-After says. */
    const RETRY_AFTER_MS = 1000;
    /** How long a publisher keeps retrying one lead before the test calls it unresolved. */
    const RETRY_FOR_MS = 120_000;

    interface Sent {
      clickid: string;
      body: Record<string, unknown>;
      sentAt: number;
      reply: IntakeReply;
    }

    const secrets = productionSecretsEnv();
    let mariadb: OwnMariaDb | undefined;
    let database: InspectedDatabase | undefined;
    let dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
    let buyer: CountingBuyer | undefined;
    const distributions: DistributionProcess[] = [];
    const gateways: GatewayProcess[] = [];
    let admin: Admin | undefined;
    let publisher: { id: string; key: string };
    let buyerId = '';
    const pids: number[] = [];

    // Filled by the run in `before`, checked by the tests.
    const load: Sent[] = [];
    let killedAt = 0;
    let restartedAt = 0;
    const fresh: Sent[] = [];
    const retries: Sent[] = [];
    const finalOk = new Map<string, IntakeReply>();
    const unresolved: Sent[] = [];
    const handles = () => [...distributions, ...gateways].map((process) => process.handle);

    before(async function () {
      needOrSkip(this, mariadbBinariesAvailable(), 'mariadbd or mariadb-install-db is not installed');
      mariadb = new OwnMariaDb();
      await mariadb.install();
      await mariadb.start();
      database = await mariadb.createDatabase('leadflow');
      dataDir = await tempDir('lf-restart-');
      // Counts what it accepts: a lead sold twice shows there, whatever our tables say.
      buyer = await startCountingBuyer();
      // Slow enough that some leads are at the buyer when the database dies.
      buyer.behave('/buyer', { kind: 'accept', delayMs: 250 });
      const env = {
        ...secrets,
        DATABASE_URL: database.url,
        LEADFLOW_DATA_DIR: dataDir.path,
        LEADFLOW_LOG_LEVEL: 'info',
        LEADFLOW_SELL_DEADLINE_MS: String(SELL_DEADLINE_MS),
      };
      // One at a time, each kept as soon as it runs, so that `after` stops whatever did start.
      distributions.push(await startDistributionProcess('distribution-a', env));
      distributions.push(await startDistributionProcess('distribution-b', env));
      const gatewayEnv = {
        LEADFLOW_LOG_LEVEL: 'info',
        REDIS_URL: '',
        LEADFLOW_INTAKE_DEADLINE_MS: String(INTAKE_DEADLINE_MS),
      };
      gateways.push(await startGatewayProcess('gateway-a', distributions[0]!.address, gatewayEnv));
      gateways.push(await startGatewayProcess('gateway-b', distributions[1]!.address, gatewayEnv));
      pids.push(...handles().map((handle) => handle.child.pid!));
      admin = new Admin(distributions[0]!.address, secrets.LEADFLOW_ADMIN_TOKEN!);
      // A daily cap far above the load: never reached, but its counter must track the sales.
      buyerId = (
        await admin.applyBuyers([testBuyer('restart-buyer', buyer.url('/buyer'), { caps: { leadsPerDay: 1_000_000 } })])
      )['restart-buyer']!;
      publisher = await admin.createPublisher('mysql-restart', 100_000);
      await sleep(1500);

      // Publishers retry a 5xx with the same clickid and body, after the Retry-After second, until it is a 200:
      // retriers run beside the load, so some retries land during the outage and right after it.
      const retryQueue: Sent[] = [];
      let retryInProgress = 0;
      let acceptingRetries = true;
      const retryLater = (sent: Sent) => retryQueue.push(sent);
      const retrier = async () => {
        for (;;) {
          const sent = retryQueue.shift();
          if (!sent) {
            if (!acceptingRetries && retryInProgress === 0) return;
            await sleep(50);
            continue;
          }
          retryInProgress += 1;
          try {
            await sleep(Math.max(0, sent.reply.at + RETRY_AFTER_MS - Date.now()));
            const sentAt = Date.now();
            const reply = await postLead(
              gateways[retries.length % 2]!.baseUrl,
              publisher.key,
              sent.body,
              INTAKE_DEADLINE_MS + 30_000,
            );
            const retry = { ...sent, sentAt, reply };
            retries.push(retry);
            if (reply.status === 200) finalOk.set(sent.clickid, reply);
            else if (
              (reply.status === 503 || reply.status === 504) &&
              Date.now() < (firstFailure.get(sent.clickid) ?? 0) + RETRY_FOR_MS
            )
              retryLater(retry);
            else unresolved.push(retry);
          } finally {
            retryInProgress -= 1;
          }
        }
      };
      const firstFailure = new Map<string, number>();
      const answered200OrRetry = (sent: Sent) => {
        if (sent.reply.status === 200) return finalOk.set(sent.clickid, sent.reply);
        firstFailure.set(sent.clickid, sent.reply.at);
        retryLater(sent);
      };
      const retriers = Promise.all(Array.from({ length: IN_FLIGHT }, retrier));

      // The load: each lead its own clickid, a few in flight at a time, paced over ~20 s.
      const bodies = Array.from({ length: LEADS }, () => validLeadBody());
      let answered = 0;
      const chaos = (async () => {
        await waitUntil('leads answered before the crash', () => answered >= KILL_AFTER_ANSWERS, 120_000, 20);
        // Not right after an answer: in the middle of the leads in flight.
        await sleep(120);
        killedAt = Date.now();
        await mariadb!.kill();
        await sleep(OUTAGE_MS);
        await mariadb!.start();
        restartedAt = Date.now();
      })();
      const loadStart = Date.now();
      await inPool(bodies, IN_FLIGHT, async (body, index) => {
        await sleep(Math.max(0, loadStart + index * SPACING_MS - Date.now()));
        const sentAt = Date.now();
        const reply = await postLead(gateways[index % 2]!.baseUrl, publisher.key, body, INTAKE_DEADLINE_MS + 30_000);
        const sent = { clickid: body.clickid as string, body, sentAt, reply };
        load.push(sent);
        answered200OrRetry(sent);
        answered += 1;
      });
      await chaos;

      // Recovery without restarting leadflow: once one lead gets through, twenty fresh ones in a row.
      await waitUntil(
        'a fresh lead answered 200 after the restart',
        async () => {
          const body = validLeadBody();
          const sentAt = Date.now();
          const probe = {
            clickid: body.clickid as string,
            body,
            sentAt,
            reply: await postLead(gateways[0]!.baseUrl, publisher.key, body, INTAKE_DEADLINE_MS + 30_000),
          };
          // The probes are leads too, retried like the rest.
          load.push(probe);
          answered200OrRetry(probe);
          return probe.reply.status === 200;
        },
        120_000,
        500,
      );
      for (let index = 0; index < 20; index++) {
        const body = validLeadBody();
        const sentAt = Date.now();
        const sent = {
          clickid: body.clickid as string,
          body,
          sentAt,
          reply: await postLead(gateways[index % 2]!.baseUrl, publisher.key, body, INTAKE_DEADLINE_MS + 30_000),
        };
        fresh.push(sent);
        answered200OrRetry(sent);
      }
      acceptingRetries = false;
      await retriers;
    });

    afterEach(function () {
      printOutputOnFailure(this, handles);
    });

    after(async () => {
      admin?.close();
      await cleanUp([
        ...gateways.map((gateway) => () => gateway.handle.stop()),
        ...distributions.map((distribution) => () => distribution.handle.stop()),
        () => buyer?.close(),
        () => database?.close(),
        () => mariadb?.destroy(),
        () => dataDir?.remove(),
      ]);
    });

    const duringOutage = (sent: Sent) => sent.reply.at >= killedAt && sent.sentAt <= restartedAt;

    it('answered every lead during the outage with 200 or a retryable 503/504, in time, never a 500', () => {
      const outage = load.filter(duringOutage);
      const statuses = countBy(load, (sent) => sent.reply.error ?? sent.reply.status);
      const outageStatuses = countBy(outage, (sent) => sent.reply.error ?? sent.reply.status);
      const gatewayFailures = countBy(
        gateways.flatMap((gateway) => failureLines(gateway.handle)),
        (line) => line,
      );
      reportFigures(
        `      load: ${load.length} leads, ${JSON.stringify(statuses)}; during the ${restartedAt - killedAt} ms outage ${outage.length} answers ${JSON.stringify(outageStatuses)}; ` +
          `retries of ${load.length - load.filter((sent) => sent.reply.status === 200).length} leads: ${retries.length} requests ${JSON.stringify(countBy(retries, (sent) => sent.reply.error ?? sent.reply.status))}\n` +
          `      gateway 5xx causes: ${JSON.stringify(gatewayFailures)}`,
      );
      expect(killedAt, 'the database was killed during the load').to.be.above(0);
      expect(outage.length, 'leads were sent during the outage').to.be.above(0);
      for (const sent of [...load, ...retries]) {
        const { reply } = sent;
        expect(reply.error, `${sent.clickid}: ${describeReply(reply)}`).to.equal(undefined);
        expect([200, 503, 504], `${sent.clickid}: ${describeReply(reply)}`).to.include(reply.status);
        expect(reply.elapsedMs, `${sent.clickid}: answered past the deadline`).to.be.below(INTAKE_DEADLINE_MS + 10_000);
        if (reply.status !== 200) {
          expect(reply.body.status).to.equal('error');
          // A fixed message: no stack, no driver error, no SQL.
          expect(reply.body.message)
            .to.be.a('string')
            .and.not.match(/\n\s+at\s|ECONN|PROTOCOL_|ER_[A-Z]|select|insert|update/i);
        }
        if (reply.status === 503) expect(reply.headers['retry-after']).to.equal('1');
      }
      for (const sent of load.filter((sent) => sent.reply.at < killedAt))
        expect(sent.reply.status, describeReply(sent.reply)).to.equal(200);
      // The outage did cost something: it is not a test of nothing.
      expect(outage.filter((sent) => sent.reply.status !== 200).length).to.be.above(0);
    });

    it('recovered by itself: the same processes answer fresh leads 200 after the restart', () => {
      reportFigures(
        `      after the restart: 20 fresh leads ${JSON.stringify(countBy(fresh, (sent) => sent.reply.error ?? sent.reply.status))}`,
      );
      for (const sent of fresh) expect(sent.reply.status, describeReply(sent.reply)).to.equal(200);
      expect(handles().map((handle) => handle.running)).to.deep.equal([true, true, true, true]);
      expect(handles().map((handle) => handle.child.pid)).to.deep.equal(pids);
    });

    it('stored every lead answered 200 with its outcome, left none half-written, and the buyer accepted none twice', async () => {
      const audit = await auditStore(database!, [publisher.id], finalOk);
      const posts = countBy(buyer!.received, (post) => post.leadId);
      const postedTwice = Object.keys(posts).filter((leadId) => posts[leadId]! > 1);
      const leadIds = (
        await database!.rows<{ id: string }>('SELECT id FROM leads WHERE publisher_id = ?', [publisher.id])
      ).map((lead) => lead.id);
      // Sold twice is counted where it costs: at the buyer, which may hold a lead our tables show once.
      const atBuyer = await auditAtBuyers(database!, buyer!.acceptances, () => buyerId, leadIds);
      reportFigures(
        `      stored: ${audit.leads} leads ${JSON.stringify(audit.byStatus)}, ${audit.sales} sales, ${audit.ledgerEntries} ledger entries; ` +
          `answered 200 in the end: ${finalOk.size}; unresolved: ${unresolved.length}; lost: ${audit.lost}; sold twice: ${audit.soldTwice}; ` +
          `leads posted to the buyer more than once: ${postedTwice.length}; accepted by it more than once: ${atBuyer.acceptedTwice.length}; ` +
          `its ${atBuyer.acceptances} acceptances: ${atBuyer.inSale} in a sale, ${atBuyer.inUnconfirmed} in an unconfirmed lead`,
      );
      const rejected = await database!.rows<{ id: string; reason: string; created_at: number; completed_at: number }>(
        'SELECT id, reason, created_at, completed_at FROM leads WHERE publisher_id = ? AND status = ?',
        [publisher.id, 'rejected'],
      );
      for (const lead of rejected) {
        const attempts = await database!.rows<{
          kind: string;
          outcome: string;
          reason: string | null;
          started_at: number;
          duration_ms: number;
        }>(
          'SELECT kind, outcome, reason, started_at, duration_ms FROM buyer_attempts WHERE lead_id = ? ORDER BY started_at',
          [lead.id],
        );
        reportFigures(
          `      rejected ${lead.id}: "${lead.reason}", created ${lead.created_at - killedAt} ms after the kill, completed ${lead.completed_at - lead.created_at} ms later, ` +
            `posted ${posts[lead.id] ?? 0} time(s); attempts ${JSON.stringify(attempts.map((attempt) => ({ ...attempt, started_at: attempt.started_at - lead.created_at })))}`,
        );
      }
      expect(postedTwice, 'leads posted to the buyer more than once').to.deep.equal([]);
      expect(atBuyer.acceptedTwice, 'leads the buyer accepted more than once').to.deep.equal([]);
      expect(atBuyer.problems, 'acceptances not in exactly one sale or unconfirmed lead').to.deep.equal([]);
      expect(atBuyer.inSale + atBuyer.inUnconfirmed).to.equal(atBuyer.acceptances);
      expect(
        unresolved.map((sent) => sent.clickid),
        'leads that never got a 200 on retry',
      ).to.deep.equal([]);
      expect(audit.problems).to.deep.equal([]);
      expect(audit.lost).to.equal(0);
      expect(audit.soldTwice).to.equal(0);
      expect(audit.leads).to.equal(load.length + fresh.length);
      expect(audit.byStatus.processing ?? 0).to.equal(0);
      const sold = (
        await database!.rows<{ n: number }>('SELECT COUNT(*) AS n FROM leads WHERE publisher_id = ? AND status = ?', [
          publisher.id,
          'sold',
        ])
      )[0]!.n;
      expect(audit.sales).to.equal(sold);
      expect(audit.ledgerEntries).to.equal(3 * sold);
      const saleBuyers = await database!.rows<{ buyer_id: string }>(
        'SELECT DISTINCT buyer_id FROM sales WHERE publisher_id = ?',
        [publisher.id],
      );
      expect(saleBuyers.map((row) => row.buyer_id)).to.deep.equal(sold > 0 ? [buyerId] : []);
    });

    it("keeps the buyer's cap counter equal to its sales and the leads it may hold: an interrupted sale that never reached it gives its place back", async () => {
      const sales = Number(
        (await database!.rows<{ n: number }>('SELECT COUNT(*) AS n FROM sales WHERE buyer_id = ?', [buyerId]))[0]!.n,
      );
      // An unconfirmed lead keeps its place under the cap until it is resolved: the buyer may have it.
      const unconfirmed = Number(
        (
          await database!.rows<{ n: number }>(
            "SELECT COUNT(*) AS n FROM leads WHERE publisher_id = ? AND status = 'unconfirmed'",
            [publisher.id],
          )
        )[0]!.n,
      );
      const counted = Number(
        (
          await database!.rows<{ n: number | null }>(
            "SELECT SUM(leads) AS n FROM buyer_cap_counters WHERE buyer_id = ? AND period LIKE 'd:%'",
            [buyerId],
          )
        )[0]!.n,
      );
      reportFigures(
        `      caps: ${sales} sales to the buyer, ${unconfirmed} unconfirmed leads, ${buyer!.received.length} posts to it, its daily cap counter says ${counted}`,
      );
      expect(counted, 'leads counted against the cap').to.equal(sales + unconfirmed);
    });
  });

  describe("MySQL killed while a lead's transaction is open (own MariaDB)", () => {
    const secrets = productionSecretsEnv();
    let mariadb: OwnMariaDb | undefined;
    let database: InspectedDatabase | undefined;
    let dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
    let distribution: DistributionProcess | undefined;
    let gateway: GatewayProcess | undefined;
    let admin: Admin | undefined;

    before(async function () {
      needOrSkip(this, mariadbBinariesAvailable(), 'mariadbd or mariadb-install-db is not installed');
      mariadb = new OwnMariaDb();
      await mariadb.install();
      await mariadb.start();
      database = await mariadb.createDatabase('leadflow');
      dataDir = await tempDir('lf-opentx-');
      distribution = await startDistributionProcess('distribution', {
        ...secrets,
        DATABASE_URL: database.url,
        LEADFLOW_DATA_DIR: dataDir.path,
        LEADFLOW_LOG_LEVEL: 'info',
      });
      gateway = await startGatewayProcess('gateway', distribution.address, {
        LEADFLOW_LOG_LEVEL: 'info',
        REDIS_URL: '',
      });
      admin = new Admin(distribution.address, secrets.LEADFLOW_ADMIN_TOKEN!);
    });
    afterEach(function () {
      printOutputOnFailure(this, () => [distribution?.handle, gateway?.handle]);
    });
    after(async () => {
      admin?.close();
      await cleanUp([
        () => gateway?.handle.stop(),
        () => distribution?.handle.stop(),
        () => database?.close(),
        () => mariadb?.destroy(),
        () => dataDir?.remove(),
      ]);
    });

    it('answers a retryable 503, not a 500, for a lead whose transaction the crash cut off', async () => {
      const publisher = await admin!.createPublisher('open-transaction', 1000);
      // A first lead warms the key caches: the next one goes straight to storing.
      expect((await postLead(gateway!.baseUrl, publisher.key, validLeadBody())).status).to.equal(200);

      // Writes wait on a global read lock, so the next lead's insert is held inside its open transaction.
      const locker = await createConnection({ uri: mariadb!.serverUrl });
      locker.on('error', () => {});
      await locker.query('FLUSH TABLES WITH READ LOCK');
      const body = validLeadBody();
      const pending = postLead(gateway!.baseUrl, publisher.key, body, 60_000);
      await waitUntil(
        "the lead's insert to wait inside its transaction",
        async () => {
          const [rows] = await locker.query<RowDataPacket[]>('SHOW PROCESSLIST');
          return rows.some(
            (row) => /lock/i.test(String(row.State)) && String(row.Info).toLowerCase().startsWith('insert into'),
          );
        },
        30_000,
        50,
      );
      await mariadb!.kill();
      locker.destroy();
      const cut = await pending;
      const failures = distribution!.handle.logLines().filter((line) => line.msg === 'request failed');

      await mariadb!.start();
      let retried: IntakeReply | undefined;
      for (let attempt = 0; attempt < 30 && retried?.status !== 200; attempt++) {
        if (attempt > 0) await sleep(1000);
        retried = await postLead(gateway!.baseUrl, publisher.key, body, 60_000);
      }
      reportFigures(
        `      open transaction cut: answer ${describeReply(cut)}; distribution logged ${JSON.stringify(failures.map((line) => line.error))}; retry after the restart ${describeReply(retried!)}`,
      );

      expect(retried!.status, 'the retry after the restart').to.equal(200);
      expect([503, 504], `the answer while storage was gone: ${describeReply(cut)}`).to.include(cut.status);
    });
  });

  describe('a distribution service killed mid-sale: a retry through the other instance takes the lead over', () => {
    const SELL_DEADLINE_MS = 5000;
    const INTAKE_DEADLINE_MS = 6000;
    const BUYER_TIMEOUT_MS = 4000;
    /** intake.service.ts: a claim older than the sell deadline plus this is held by a process that died. */
    const STALE_CLAIM_GRACE_MS = 5000;
    const secrets = productionSecretsEnv();
    let database: DroppableDatabase | undefined;
    let dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
    const buyers: GatedBuyer[] = [];
    const distributions: DistributionProcess[] = [];
    const gateways: GatewayProcess[] = [];
    let survivor: GatewayProcess | undefined;
    let admin: Admin | undefined;
    const handles = () => [...distributions, ...gateways].map((process) => process.handle);

    /**
     * A distribution service with a gateway in front of it; `crashAt`: the service's LEADFLOW_CRASH_AT.
     * Its deadlines are the survivor's unless given.
     */
    async function startInstance(
      name: string,
      { crashAt, sellDeadlineMs = SELL_DEADLINE_MS, intakeDeadlineMs = INTAKE_DEADLINE_MS }: InstanceOptions = {},
    ): Promise<{ distribution: DistributionProcess; gateway: GatewayProcess }> {
      const distribution = await startDistributionProcess(`distribution-${name}`, {
        ...secrets,
        DATABASE_URL: database!.url,
        LEADFLOW_DATA_DIR: dataDir!.path,
        LEADFLOW_LOG_LEVEL: 'info',
        LEADFLOW_SELL_DEADLINE_MS: String(sellDeadlineMs),
        ...(crashAt ? { LEADFLOW_CRASH_AT: crashAt } : {}),
      });
      distributions.push(distribution);
      const gateway = await startGatewayProcess(`gateway-${name}`, distribution.address, {
        LEADFLOW_LOG_LEVEL: 'info',
        REDIS_URL: '',
        LEADFLOW_INTAKE_DEADLINE_MS: String(intakeDeadlineMs),
      });
      gateways.push(gateway);
      return { distribution, gateway };
    }

    /** Buyers at new gated endpoints, in place of those before: their ids, once every instance has them. */
    async function applyGatedBuyers(
      gated: { buyer: GatedBuyer; definition: Record<string, unknown> }[],
    ): Promise<Record<string, string>> {
      buyers.push(...gated.map(({ buyer }) => buyer));
      const ids = await admin!.applyBuyers(gated.map(({ definition }) => definition));
      // Every instance has seen the change once its list of active buyers expires.
      await sleep(1500);
      return ids;
    }

    /** The one buyer, at a new gated endpoint (applied under the same name): its id. */
    async function takeoverBuyer(buyer: GatedBuyer): Promise<string> {
      const definition = testBuyer('takeover-buyer', buyer.url, { integration: { timeoutMs: BUYER_TIMEOUT_MS } });
      return (await applyGatedBuyers([{ buyer, definition }]))['takeover-buyer']!;
    }

    /**
     * The lead as its publisher retries it through the surviving instance after the first try died with
     * its service, as a 503 asks, starting while the claim is still fresh: the retry waits, and the claim
     * turns stale while it waits. The lead's stored row as the death left it, and every retry's answer.
     */
    async function retryThroughSurvivor(publisherId: string, key: string, body: Record<string, unknown>) {
      const [row] = await database!.rows<{ id: string; status: string; claimed_at: number }>(
        'SELECT id, status, claimed_at FROM leads WHERE publisher_id = ? AND clickid = ?',
        [publisherId, body.clickid],
      );
      if (!row) return { row, retries: [] };
      const staleAt = row.claimed_at + SELL_DEADLINE_MS + STALE_CLAIM_GRACE_MS;
      await sleep(Math.max(0, staleAt - BUYER_TIMEOUT_MS - Date.now()));
      const retries: IntakeReply[] = [];
      for (let attempt = 0; attempt < 30; attempt++) {
        const reply = await postLead(survivor!.baseUrl, key, body, 60_000);
        retries.push(reply);
        if (reply.status !== 503 && reply.status !== 504) break;
        await sleep(1000);
      }
      return { row, retries };
    }

    before(async function () {
      await needSharedMysql(this);
      database = await createClusterDatabase();
      dataDir = await tempDir('lf-takeover-');
      const { distribution, gateway } = await startInstance('survivor');
      survivor = gateway;
      admin = new Admin(distribution.address, secrets.LEADFLOW_ADMIN_TOKEN!);
    });
    afterEach(function () {
      printOutputOnFailure(this, handles);
    });
    after(async () => {
      admin?.close();
      for (const buyer of buyers) buyer.open();
      await cleanUp([
        ...gateways.map((gateway) => () => gateway.handle.stop()),
        ...distributions.map((distribution) => () => distribution.handle.stop()),
        ...buyers.map((buyer) => () => buyer.close()),
        () => database?.drop(),
        () => dataDir?.remove(),
      ]);
    });

    it('sells a lead whose service died before posting it with a full selling budget, not with what is left of the retry', async () => {
      const buyer = await startGatedBuyer(0);
      buyer.open();
      const buyerId = await takeoverBuyer(buyer);
      const publisher = await admin!.createPublisher('takeover', 1000);
      // The service dies with the buyer's caps held for the lead, before its post intent: nothing reached the buyer.
      const doomed = await startInstance('doomed', { crashAt: 'before-intent:kill' });
      const body = validLeadBody();
      const firstReply = await postLead(doomed.gateway.baseUrl, publisher.key, body, 60_000);
      const died = await doomed.distribution.handle.exited;
      const { row, retries } = await retryThroughSurvivor(publisher.id, publisher.key, body);
      reportFigures(
        `      takeover before the post: first answer ${describeReply(firstReply)}, service ${JSON.stringify(died)}; ` +
          `retries ${retries.map(describeReply).join(' | ')}; posts to the buyer ${buyer.received.length}`,
      );

      expect(died, 'the service died at the crash point').to.deep.equal({ code: null, signal: 'SIGKILL' });
      expect([503, 504], describeReply(firstReply)).to.include(firstReply.status);
      expect(row, 'the lead was stored before it went to a buyer').to.exist;
      expect(row!.status).to.equal('processing');
      const last = retries.at(-1)!;
      expect(last.status, describeReply(last)).to.equal(200);
      expect(last.body.leadId).to.equal(row!.id);
      // The buyer accepts every lead at once: the lead must be sold to it, not rejected for want of time.
      expect(last.body, describeReply(last)).to.include({ status: 'sold', buyerId });
      expect(buyer.received, 'posts to the buyer').to.deep.equal([row!.id]);
    });

    it('never posts a lead again that was at the buyer when its service died: the retry answers it unconfirmed', async () => {
      const buyer = await startGatedBuyer(0);
      await takeoverBuyer(buyer);
      const publisher = await admin!.createPublisher('takeover-at-buyer', 1000);
      const doomed = await startInstance('killed-at-buyer');
      const body = validLeadBody();
      const first = postLead(doomed.gateway.baseUrl, publisher.key, body, 60_000);
      await waitUntil('the lead at the buyer', () => buyer.received.length === 1, 60_000, 20);
      await doomed.distribution.handle.kill();
      const firstReply = await first;
      // The buyer takes the lead; its answer goes into a dead connection.
      buyer.open();
      const { row, retries } = await retryThroughSurvivor(publisher.id, publisher.key, body);
      const [after] = await database!.rows<{ status: string }>('SELECT status FROM leads WHERE id = ?', [row?.id]);
      reportFigures(
        `      takeover with the post at the buyer: first answer ${describeReply(firstReply)}; retries ${retries.map(describeReply).join(' | ')}; ` +
          `posts to the buyer ${buyer.received.length}; lead ${after?.status}`,
      );

      expect([503, 504], describeReply(firstReply)).to.include(firstReply.status);
      expect(row!.status, 'as the death left the lead').to.equal('processing');
      const last = retries.at(-1)!;
      expect(last.status, describeReply(last)).to.equal(200);
      // The buyer may have it: no other post, not to it and not to anyone, until the lead is resolved.
      expect(last.body, describeReply(last)).to.include({ status: 'rejected', leadId: row!.id });
      expect(after!.status).to.equal('unconfirmed');
      expect(buyer.received, 'posts to the buyer').to.deep.equal([row!.id]);
    });

    it('lets a service frozen at the buyer wake after its lead was sold elsewhere: it posts it to no other buyer', async () => {
      const buyer = await startGatedBuyer(0);
      const next = await startGatedBuyer(0);
      const third = await startGatedBuyer(0);
      next.open();
      third.open();
      // The first buyer's contract counts a post it does not answer in time as declined: a takeover moves on.
      const ids = await applyGatedBuyers([
        {
          buyer,
          definition: testBuyer('takeover-buyer', buyer.url, {
            pricing: { type: 'fixed', price: '40.00' },
            integration: { timeoutMs: BUYER_TIMEOUT_MS, onTimeout: 'decline' },
          }),
        },
        { buyer: next, definition: testBuyer('next-buyer', next.url, { pricing: { type: 'fixed', price: '20.00' } }) },
        {
          buyer: third,
          definition: testBuyer('third-buyer', third.url, { pricing: { type: 'fixed', price: '15.00' } }),
        },
      ]);
      const publisher = await admin!.createPublisher('takeover-frozen', 1000);
      // Longer deadlines than the survivor's (a configuration being rolled out): woken after the takeover,
      // the service still has time to sell the lead, and the buyers it planned to post to.
      const frozen = await startInstance('frozen-at-buyer', { sellDeadlineMs: 40_000, intakeDeadlineMs: 50_000 });
      const body = validLeadBody();
      const first = postLead(frozen.gateway.baseUrl, publisher.key, body, 60_000);
      await waitUntil('the lead at the buyer', () => buyer.received.length === 1, 60_000, 20);
      // A stall (a long pause, a frozen VM), not a death: the process wakes up later with its sale in hand.
      frozen.distribution.handle.signal('SIGSTOP');
      await waitUntil('the service stopped', () => frozen.distribution.handle.stopped(), 10_000, 20);
      const { row, retries } = await retryThroughSurvivor(publisher.id, publisher.key, body);
      const takenOver = retries.at(-1)!;
      // Woken, the service finds its call to the first buyer timed out, which that buyer's contract makes a
      // decline, and time left to post to the next buyers in its plan.
      frozen.distribution.handle.signal('SIGCONT');
      const firstReply = await first;
      const [after] = await database!.rows<{ status: string; buyer_id: string | null }>(
        'SELECT status, buyer_id FROM leads WHERE id = ?',
        [row!.id],
      );
      const sales = await database!.rows<{ buyer_id: string }>('SELECT buyer_id FROM sales WHERE lead_id = ?', [
        row!.id,
      ]);
      const [ledger] = await database!.rows<{ entries: number }>(
        'SELECT COUNT(*) AS entries FROM ledger_entries WHERE lead_id = ?',
        [row!.id],
      );
      const posts = await database!.rows<{ buyer_id: string }>(
        'SELECT buyer_id FROM lead_posts WHERE lead_id = ? ORDER BY created_at',
        [row!.id],
      );
      const replay = await postLead(survivor!.baseUrl, publisher.key, body, 60_000);
      reportFigures(
        `      frozen at the buyer: after the takeover ${describeReply(takenOver)}; woken: first answer ${describeReply(firstReply)}, ` +
          `lead ${after?.status}, sales ${sales.length}; posts ${buyer.received.length}, ${next.received.length}, ${third.received.length}`,
      );

      const soldToNext = { status: 'sold', leadId: row!.id, buyerId: ids['next-buyer'] };
      expect(takenOver.status, describeReply(takenOver)).to.equal(200);
      expect(takenOver.body, describeReply(takenOver)).to.include(soldToNext);
      expect(frozen.distribution.handle.running, 'the woken service is still up').to.equal(true);
      // Woken, the service answers the sale recovery made, or asks for a retry that replays it.
      expect([200, 503, 504], describeReply(firstReply)).to.include(firstReply.status);
      if (firstReply.status === 200) expect(firstReply.body, describeReply(firstReply)).to.include(soldToNext);
      expect(replay.body, describeReply(replay)).to.include(soldToNext);
      expect(after).to.deep.equal({ status: 'sold', buyer_id: ids['next-buyer'] });
      expect(sales.map((sale) => sale.buyer_id)).to.deep.equal([ids['next-buyer']]);
      expect(Number(ledger!.entries)).to.equal(3);
      expect(buyer.received, 'posts to the first buyer').to.deep.equal([row!.id]);
      expect(next.received, 'posts to the next buyer').to.deep.equal([row!.id]);
      expect(third.received, 'posts to the third buyer').to.deep.equal([]);
      // The woken service's refused intents leave no post a buyer never got (its audit trail, its duplicate
      // checks and its reports would count one).
      expect(
        posts.map((post) => post.buyer_id),
        'stored posts',
      ).to.deep.equal([ids['takeover-buyer'], ids['next-buyer']]);
    });
  });

  describe('Redis killed under load: the gateway falls back to its own count, then goes back to Redis', () => {
    const pair = new Pair();
    let redis: RedisServerProcess | undefined;
    let redisPort = 0;
    let buyers: TestBuyerServer | undefined;

    before(async function () {
      await needSharedMysql(this);
      redisPort = await freePort();
      redis = new RedisServerProcess(redisPort);
      skipUnlessAvailable(this, await redis.start(), 'redis-server is not installed');
      await pair.start({ gatewayEnv: { REDIS_URL: redis.url } });
      buyers = await startBuyerServer();
      buyers.behave('/buyer', { kind: 'accept' });
      await pair.admin!.applyBuyers([testBuyer('redis-buyer', buyers.url('/buyer'))]);
    });
    afterEach(function () {
      printOutputOnFailure(this, () => pair.handles());
    });
    after(async () => {
      await cleanUp([() => redis?.kill(), () => buyers?.close(), () => pair.stop()]);
    });

    it('answers 200, 400 or 429 throughout, logs the fallback, and counts in Redis again once it is back', async () => {
      const { admin, gateway } = pair;
      const publisher = await admin!.createPublisher('redis-outage', 40);
      const replies: { phase: string; reply: IntakeReply }[] = [];
      const send = async (phase: string, count: number) => {
        for (let index = 0; index < count; index++) {
          // Every fifth request is an invalid lead: it counts against the limit too, and is answered 400.
          const body = index % 5 === 4 ? validLeadBody({ email: 'not-an-email', zip: '1' }) : validLeadBody();
          replies.push({ phase, reply: await postLead(gateway!.baseUrl, publisher.key, body) });
          await sleep(50);
        }
      };
      const key = `leadflow:rl:pub:${publisher.id}`;

      await send('redis up', 15);
      const probe = new Redis(redis!.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      probe.on('error', () => {});
      await probe.connect();
      const countedBefore = await probe.zcard(key);
      probe.disconnect();

      await redis!.kill();
      await send('redis down', 45);
      const fallbackWarnings = logLinesWith(gateway!.handle, 'shared rate limiter failed');

      redis = new RedisServerProcess(redisPort);
      await redis.start();
      // The client reconnects within about a second and the limiter probes Redis once a second:
      // send until the gateway says it is back on Redis, then a few more.
      for (
        let round = 0;
        round < 40 && logLinesWith(gateway!.handle, 'shared rate limiter answers again').length === 0;
        round++
      ) {
        await send('redis back', 1);
        await sleep(150);
      }
      await send('redis back', 5);
      const again = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
      again.on('error', () => {});
      await again.connect();
      const countedAfter = await again.zcard(key);
      again.disconnect();
      const recoveredLines = logLinesWith(gateway!.handle, 'shared rate limiter answers again');

      const byPhase = Object.fromEntries(
        ['redis up', 'redis down', 'redis back'].map((phase) => [
          phase,
          countBy(
            replies.filter((entry) => entry.phase === phase),
            (entry) => entry.reply.error ?? entry.reply.status,
          ),
        ]),
      );
      reportFigures(
        `      redis: ${JSON.stringify(byPhase)}; counted in Redis before ${countedBefore}, after its restart ${countedAfter}; fallback warnings ${fallbackWarnings.length}, recovery lines ${recoveredLines.length}`,
      );
      for (const { phase, reply } of replies)
        expect([200, 400, 429], `${phase}: ${describeReply(reply)}`).to.include(reply.status);
      expect(countedBefore, 'requests counted in Redis before it died').to.be.above(0);
      expect(fallbackWarnings.length, 'the gateway logs that it fell back to its local count').to.be.above(0);
      expect(fallbackWarnings[0]!.level).to.equal(40);
      // While Redis is down the local count applies the publisher's 40 per minute on its own.
      expect(replies.filter((entry) => entry.phase === 'redis down' && entry.reply.status === 429).length).to.be.above(
        0,
      );
      expect(recoveredLines.length, 'the gateway logs that Redis answers again').to.be.above(0);
      expect(countedAfter, 'requests after the restart are counted in the new Redis').to.be.above(0);
    });
  });

  describe('buyers down: the circuit breaker keeps answers fast', () => {
    const BUYER_TIMEOUT_MS = 3000;
    const pair = new Pair();
    let buyers: TestBuyerServer | undefined;

    before(async function () {
      await needSharedMysql(this);
      await pair.start();
      buyers = await startBuyerServer();
    });
    afterEach(function () {
      printOutputOnFailure(this, () => pair.handles());
    });
    after(async () => {
      await cleanUp([() => buyers?.close(), () => pair.stop()]);
    });

    it('opens the circuit of a hanging buyer and of a refusing one after 5 failures; later leads skip them and sell fast', async () => {
      const { admin, gateway, database } = pair;
      buyers!.behave('/hangs', { kind: 'hang' });
      buyers!.behave('/backup', { kind: 'accept' });
      // Nothing listens there: every post is refused.
      const refusing = `http://127.0.0.1:${await freePort()}/refuses`;
      const ids = await admin!.applyBuyers([
        // Its contract makes a post it does not answer in time a decline: the lead goes on to the next buyer.
        testBuyer('hanging-buyer', buyers!.url('/hangs'), {
          tier: 1,
          integration: { timeoutMs: BUYER_TIMEOUT_MS, onTimeout: 'decline' },
        }),
        testBuyer('refusing-buyer', refusing, { tier: 1, integration: { timeoutMs: BUYER_TIMEOUT_MS } }),
        testBuyer('backup-buyer', buyers!.url('/backup'), { tier: 2 }),
      ]);
      const publisher = await admin!.createPublisher('buyers-down', 1000);

      const slow: IntakeReply[] = [];
      for (let index = 0; index < 5; index++)
        slow.push(await postLead(gateway!.baseUrl, publisher.key, validLeadBody()));
      const fast: IntakeReply[] = [];
      for (let index = 0; index < 10; index++)
        fast.push(await postLead(gateway!.baseUrl, publisher.key, validLeadBody()));
      reportFigures(
        `      buyers down: processingTime of the first 5 leads ${JSON.stringify(slow.map((reply) => reply.body?.processingTime))} ms, ` +
          `of the next 10 ${JSON.stringify(fast.map((reply) => reply.body?.processingTime))} ms (buyer timeout ${BUYER_TIMEOUT_MS} ms)`,
      );

      for (const reply of [...slow, ...fast]) {
        expect(reply.status, describeReply(reply)).to.equal(200);
        expect(reply.body).to.include({ status: 'sold', buyerId: ids['backup-buyer'] });
      }
      // The first five each waited out the hanging buyer.
      for (const reply of slow) expect(reply.body.processingTime).to.be.at.least(BUYER_TIMEOUT_MS - 500);
      // Then both circuits are open: no lead waits on either buyer.
      for (const reply of fast)
        expect(reply.body.processingTime, 'well below the buyer timeout').to.be.below(BUYER_TIMEOUT_MS / 2);

      const attempts = await database!.rows<{
        lead_id: string;
        buyer_id: string;
        kind: string;
        outcome: string;
        reason: string | null;
      }>('SELECT lead_id, buyer_id, kind, outcome, reason FROM buyer_attempts WHERE lead_id IN (?)', [
        fast.map((reply) => reply.body.leadId),
      ]);
      for (const buyer of ['hanging-buyer', 'refusing-buyer']) {
        const rows = attempts.filter((row) => row.buyer_id === ids[buyer]);
        expect(rows, buyer).to.have.length(fast.length);
        for (const row of rows) expect(row).to.include({ kind: 'skip', reason: 'circuit_open' });
      }
      expect(buyers!.received('/hangs'), 'posts that reached the hanging buyer').to.have.length(5);
    });
  });
});
