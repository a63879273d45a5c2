import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../support/buyer-server.js';
import { testBuyer } from '../support/buyers.js';
import { reportFigures } from '../support/figures.js';
import { validLeadBody } from '../support/leads.js';
import { REDIS_URL, requireSharedRedis } from '../support/redis.js';
import { productionSecretsEnv } from '../support/test-database.js';
import { Admin } from './support/admin.js';
import { countBy, describeReply, type IntakeReply, inPool, postLead } from './support/http.js';
import {
  createClusterDatabase,
  type InspectedDatabase,
  MYSQL_SERVER_URL,
  needOrSkip,
  sharedMysqlReachable,
} from './support/mariadb.js';
import {
  cleanUp,
  type DistributionProcess,
  type GatewayProcess,
  startDistributionProcess,
  startGatewayProcess,
  tempDir,
} from './support/processes.js';
import { logLinesWith, printOutputOnFailure } from './support/stack.js';
import { auditStore } from './support/store-audit.js';

const FALLBACK_WARNING = 'shared rate limiter failed';

/** Like Promise.all, but waits for every start to settle, so none is still starting when `after` cleans up. */
async function allStarted(starts: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(starts)).find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Two gateways and two distribution services as real processes, on one fresh
 * database of this machine's MariaDB and on its Redis: gateway A -> distribution A,
 * gateway B -> distribution B, as two replicas behind two load balancers would be.
 */
describe('several instances: two gateways and two distribution services on one MariaDB and one Redis', function () {
  this.timeout(300_000);
  const secrets = productionSecretsEnv();
  let database: (InspectedDatabase & { drop(): Promise<void> }) | undefined;
  let dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let buyers: TestBuyerServer | undefined;
  const distributions: DistributionProcess[] = [];
  const gateways: GatewayProcess[] = [];
  let admin: Admin | undefined;
  const handles = () => [...distributions, ...gateways].map((process) => process.handle);

  before(async function () {
    needOrSkip(this, await sharedMysqlReachable(), `no MariaDB/MySQL at ${new URL(MYSQL_SERVER_URL).host}`);
    await requireSharedRedis(this);
    database = await createClusterDatabase();
    dataDir = await tempDir('lf-cluster-');
    buyers = await startBuyerServer();
    const env = {
      ...secrets,
      DATABASE_URL: database.url,
      LEADFLOW_DATA_DIR: dataDir.path,
      LEADFLOW_LOG_LEVEL: 'info',
    };
    // Both at once: the two services also race for the migration of the fresh database.
    // Each kept as soon as it runs, so that `after` stops whatever did start.
    const keep =
      <T>(list: T[]) =>
      (started: T) => {
        list.push(started);
        return started;
      };
    await allStarted([
      startDistributionProcess('distribution-a', env).then(keep(distributions)),
      startDistributionProcess('distribution-b', env).then(keep(distributions)),
    ]);
    distributions.sort((a, b) => a.handle.name.localeCompare(b.handle.name));
    await allStarted([
      startGatewayProcess('gateway-a', distributions[0]!.address, { REDIS_URL, LEADFLOW_LOG_LEVEL: 'info' }).then(
        keep(gateways),
      ),
      startGatewayProcess('gateway-b', distributions[1]!.address, { REDIS_URL, LEADFLOW_LOG_LEVEL: 'info' }).then(
        keep(gateways),
      ),
    ]);
    gateways.sort((a, b) => a.handle.name.localeCompare(b.handle.name));
    admin = new Admin(distributions[0]!.address, secrets.LEADFLOW_ADMIN_TOKEN!);
  });

  afterEach(function () {
    printOutputOnFailure(this, handles);
  });

  after(async () => {
    admin?.close();
    await cleanUp([
      ...gateways.map((gateway) => () => gateway.handle.stop()),
      ...distributions.map((distribution) => () => distribution.handle.stop()),
      () => buyers?.close(),
      () => database?.drop(),
      () => dataDir?.remove(),
    ]);
  });

  it('(a) holds a key to 60 per minute in total across both gateways, not 60 each', async () => {
    const publisher = await admin!.createPublisher('limit-across-gateways');
    // 80 requests alternated between the gateways, four at a time: with two separate
    // counts each gateway would allow its 40; with the shared count 60 pass in total.
    const replies = await inPool(
      Array.from({ length: 80 }, (_, index) => index),
      4,
      (index) => postLead(gateways[index % 2]!.baseUrl, publisher.key, validLeadBody()),
    );
    const statuses = countBy(replies, (reply) => reply.error ?? reply.status);
    const notLimited = replies.filter((reply) => reply.status !== 429);
    const perGateway = [0, 1].map(
      (gateway) => replies.filter((reply, index) => index % 2 === gateway && reply.status !== 429).length,
    );
    reportFigures(
      `      (a) 80 requests over 2 gateways: ${JSON.stringify(statuses)}; passed per gateway ${JSON.stringify(perGateway)}`,
    );

    const fallbacks = gateways.flatMap((gateway) => logLinesWith(gateway.handle, FALLBACK_WARNING));
    expect(fallbacks, 'a gateway fell back to its local count during the test').to.deep.equal([]);
    expect(notLimited.length, JSON.stringify(statuses)).to.equal(60);
    expect(
      notLimited.map((reply) => reply.status),
      'every request under the limit is answered',
    ).to.satisfy((codes: number[]) => codes.every((code) => code === 200));
    expect(replies.filter((reply) => reply.status === 429)).to.have.length(20);
    for (const reply of replies.filter((reply) => reply.status === 429)) {
      expect(reply.body).to.include({ status: 'error' });
      expect(Number(reply.headers['retry-after'])).to.be.above(0);
    }
    // Each gateway answered part of the 60: the count is shared, not one gateway doing all the work.
    expect(perGateway[0]).to.be.above(0);
    expect(perGateway[1]).to.be.above(0);
  });

  it('(b) answers concurrent duplicates sent to different instances with one lead, one sale, one buyer call', async () => {
    buyers!.behave('/dup', { kind: 'accept', delayMs: 800, redirectUrl: 'https://lender.example/apply/dup' });
    const buyerIds = await admin!.applyBuyers([testBuyer('dup-buyer', buyers!.url('/dup'))]);
    // Every instance reloads its active buyers within a second (ACTIVE_BUYERS_TTL_MS).
    await sleep(2000);
    const publisher = await admin!.createPublisher('duplicates-across-instances', 1000);
    const body = validLeadBody();
    const clickid = body.clickid as string;

    // Ten copies at once to each gateway, so both distribution services race for the claim.
    const first = await Promise.all(
      Array.from({ length: 20 }, (_, index) => postLead(gateways[index % 2]!.baseUrl, publisher.key, body)),
    );
    // A copy that could not wait is told to retry (503); the retry must get the same lead.
    const final: IntakeReply[] = [];
    for (const [index, reply] of first.entries()) {
      let current = reply;
      for (let attempt = 0; attempt < 20 && current.status === 503; attempt++) {
        await sleep(500);
        current = await postLead(gateways[index % 2]!.baseUrl, publisher.key, body);
      }
      final.push(current);
    }
    reportFigures(
      `      (b) 20 concurrent copies: first answers ${JSON.stringify(countBy(first, (reply) => reply.error ?? reply.status))}, after retrying 503s ${JSON.stringify(countBy(final, (reply) => reply.error ?? reply.status))}`,
    );

    for (const reply of first) expect([200, 503], describeReply(reply)).to.include(reply.status);
    for (const reply of final) expect(reply.status, describeReply(reply)).to.equal(200);
    const leadIds = new Set(final.map((reply) => reply.body.leadId));
    expect([...leadIds], 'every answer names the same lead').to.have.length(1);
    for (const reply of final)
      expect(reply.body, describeReply(reply)).to.include({ status: 'sold', buyerId: buyerIds['dup-buyer'] });

    const leadId = [...leadIds][0] as string;
    const rows = await database!.rows('SELECT id, status FROM leads WHERE publisher_id = ? AND clickid = ?', [
      publisher.id,
      clickid,
    ]);
    expect(rows).to.deep.equal([{ id: leadId, status: 'sold' }]);
    expect(await database!.rows('SELECT lead_id, buyer_id FROM sales WHERE lead_id = ?', [leadId])).to.deep.equal([
      { lead_id: leadId, buyer_id: buyerIds['dup-buyer'] },
    ]);
    const ledger = await database!.rows<{ entry_type: string }>(
      'SELECT entry_type FROM ledger_entries WHERE lead_id = ? ORDER BY entry_type',
      [leadId],
    );
    expect(ledger.map((entry) => entry.entry_type)).to.deep.equal([
      'buyer_charge',
      'platform_margin',
      'publisher_payout',
    ]);
    const posts = buyers!.received('/dup').filter((post) => post.body.clickid === clickid);
    expect(posts, 'the buyer is called once for the lead').to.have.length(1);
    expect(posts[0]!.body.leadId).to.equal(leadId);

    const audit = await auditStore(database!, [publisher.id], new Map([[clickid, final[0]!]]));
    expect(audit.problems).to.deep.equal([]);
  });

  it('(c) holds a buyer cap across instances: 30 concurrent leads over both gateways, exactly 5 sold to the capped buyer', async () => {
    await admin!.setBuyerActive('dup-buyer', false).catch(() => undefined);
    buyers!.behave('/capped', { kind: 'accept', delayMs: 100 });
    buyers!.behave('/overflow', { kind: 'accept' });
    const buyerIds = await admin!.applyBuyers([
      testBuyer('capped-buyer', buyers!.url('/capped'), { tier: 1, caps: { leadsPerHour: 5 } }),
      testBuyer('overflow-buyer', buyers!.url('/overflow'), { tier: 2 }),
    ]);
    // Every instance reloads its active buyers within a second (ACTIVE_BUYERS_TTL_MS).
    await sleep(2000);
    const publisher = await admin!.createPublisher('caps-across-instances', 1000);
    const bodies = Array.from({ length: 30 }, () => validLeadBody());
    const replies = await Promise.all(
      bodies.map((body, index) => postLead(gateways[index % 2]!.baseUrl, publisher.key, body)),
    );
    const toCapped = replies.filter((reply) => reply.body?.buyerId === buyerIds['capped-buyer']);
    reportFigures(
      `      (c) 30 concurrent leads: ${JSON.stringify(countBy(replies, (reply) => reply.error ?? reply.status))}; sold to the capped buyer ${toCapped.length}, to the overflow buyer ${replies.filter((reply) => reply.body?.buyerId === buyerIds['overflow-buyer']).length}`,
    );
    for (const reply of replies) expect(reply.status, describeReply(reply)).to.equal(200);

    const sales = await database!.rows<{ created_at: number }>(
      'SELECT created_at FROM sales WHERE buyer_id = ? AND publisher_id = ?',
      [buyerIds['capped-buyer'], publisher.id],
    );
    // The cap is per clock hour: a run that straddles the hour may sell 5 in each.
    const hours = countBy(sales, (sale) => new Date(sale.created_at).toISOString().slice(0, 13));
    if (Object.keys(hours).length <= 1) {
      expect(sales).to.have.length(5);
      expect(toCapped).to.have.length(5);
      expect(buyers!.received('/capped'), 'posts to the capped buyer').to.have.length(5);
    } else {
      for (const count of Object.values(hours)) expect(count).to.be.at.most(5);
    }
    // The rest went to the next tier, not lost.
    expect(replies.every((reply) => reply.body.status === 'sold')).to.equal(true);
    const audit = await auditStore(
      database!,
      [publisher.id],
      new Map(bodies.map((body, index) => [body.clickid as string, replies[index]!])),
    );
    expect(audit.problems).to.deep.equal([]);
    expect(audit.sales).to.equal(30);
  });
});
