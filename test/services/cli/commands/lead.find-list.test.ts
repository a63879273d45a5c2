import { expect } from 'chai';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { validLeadBody } from '../../../support/leads.js';
import { type StackCli, stackCli } from '../../../support/run-leadflow.js';
import { sqliteDatabase } from '../../../support/test-database.js';

describe('leadflow lead find and lead list', () => {
  let stack: TestDistribution;
  let cli: StackCli;
  let acme: { id: string; key: string };
  let other: { id: string; key: string };
  /** Acme's leads, oldest first (none sold: there is no buyer). */
  const sent: { leadId: string; clickid: string }[] = [];

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    cli = stackCli(stack);
    acme = await stack.createPublisher();
    other = await stack.createPublisher();
    for (let i = 0; i < 3; i++) {
      const body = validLeadBody();
      const answer = await stack.submit(acme.key, body);
      sent.push({ leadId: answer.outcome!.value.leadId, clickid: body.clickid as string });
    }
    await stack.submit(other.key, validLeadBody());
  });
  after(() => stack?.close());

  it('finds a lead by the clickid a ticket quotes and shows it as lead show does', async () => {
    const run = await cli.leadflow(['lead', 'find', '--clickid', sent[1]!.clickid]);
    expect(run.code).to.equal(0);
    expect(run.stdout).to.match(new RegExp(`^lead:\\s+${sent[1]!.leadId}$`, 'm'));
    expect(run.stdout).to.match(/^status:\s+rejected$/m);
    expect(run.stdout).to.match(/^\s+ssn:\s+\*{5}6789$/m);
    const json = await cli.json('lead', 'find', '--clickid', sent[1]!.clickid, '--publisher', acme.id);
    expect(json).to.include({ leadId: sent[1]!.leadId, publisherId: acme.id, status: 'LEAD_STATUS_REJECTED' });
  });

  it("says not found for another publisher's clickid, and exits 1", async () => {
    const run = await cli.leadflow(['lead', 'find', '--clickid', sent[1]!.clickid, '--publisher', other.id]);
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    expect(run.stderr).to.equal('leadflow: not found: no lead with this clickid\n');
  });

  it('needs --clickid', async () => {
    const run = await cli.leadflow(['lead', 'find']);
    expect(run.code).to.equal(2);
    expect(run.stderr).to.include('--clickid is required');
  });

  it('lists one page at a time, newest first, and says how to get the next one', async () => {
    const first = await cli.leadflow(['lead', 'list', '--publisher', acme.id, '--limit', '2']);
    expect(first.code).to.equal(0);
    const lines = first.stdout.split('\n');
    expect(lines[0]).to.match(/^LEAD\s+CREATED\s+PUBLISHER\s+CLICKID\s+STATUS\s+BUYER\s+PAYOUT\s+TEST$/);
    expect(lines.slice(1, 3).map((line) => line.split(/\s+/)[0])).to.deep.equal([sent[2]!.leadId, sent[1]!.leadId]);
    const token = /^More leads: add --page-token (\S+)$/m.exec(first.stdout)?.[1];
    expect(token).to.be.a('string');
    const second = await cli.json('lead', 'list', '--publisher', acme.id, '--limit', '2', '--page-token', token!);
    expect(second.leads.map((lead: { leadId: string }) => lead.leadId)).to.deep.equal([sent[0]!.leadId]);
    expect(second.nextPageToken).to.equal('');
  });

  it('filters by status and time, and refuses what it cannot send', async () => {
    expect(await cli.json('lead', 'list', '--status', 'sold'), 'an empty list is there').to.deep.equal({
      leads: [],
      nextPageToken: '',
    });
    const rejected = await cli.json(
      'lead',
      'list',
      '--status',
      'rejected',
      '--from',
      '2000-01-01',
      '--to',
      '2999-01-01T00:00:00Z',
    );
    expect(rejected.leads).to.have.length(4);
    const usage = await cli.leadflow(['lead', 'list', '--status', 'lost']);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.include('--status must be one of processing, sold, rejected, unconfirmed');
    expect((await cli.leadflow(['lead', 'list', '--from', 'yesterday'])).stderr).to.include(
      '--from must be a day such as 2026-11-01',
    );
    expect((await cli.leadflow(['lead', 'list', '--unconfirmed', '--status', 'sold'])).stderr).to.include(
      '--status does not go with --unconfirmed',
    );
  });

  it('names a buyer or publisher it does not know, exit 1, rather than list no leads', async () => {
    expect(await cli.leadflow(['lead', 'list', '--buyer', 'nosuchbuyer'])).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'leadflow: not found: no buyer has the id or name "nosuchbuyer"\n',
    });
    expect(await cli.leadflow(['lead', 'list', '--publisher', 'pub_nope', '--json'])).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'leadflow: not found: no publisher has the id "pub_nope"\n',
    });
    const [buyerId] = Object.values(await stack.applyBuyers([testBuyer('known-buyer', 'https://lender.example/post')]));
    for (const buyer of ['known-buyer', buyerId!]) {
      expect(await cli.leadflow(['lead', 'list', '--buyer', buyer])).to.deep.include({ code: 0, stderr: '' });
    }
  });

  it('still lists unconfirmed leads with --unconfirmed', async () => {
    const run = await cli.leadflow(['lead', 'list', '--unconfirmed']);
    expect(run).to.deep.equal({ code: 0, stderr: '', stdout: 'No unconfirmed leads.\n' });
  });

  it('refuses a page token the service did not make, as an invalid argument', async () => {
    const run = await cli.leadflow(['lead', 'list', '--page-token', 'bogus']);
    expect(run.code).to.equal(1);
    expect(run.stderr).to.match(/^leadflow: invalid argument: page_token is not a token of this list/);
  });
});
