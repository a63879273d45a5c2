import { type ServiceError, status } from '@grpc/grpc-js';
import { type LeadRecord, LeadStatus, type ListLeadsRequest } from '@leadflow/proto/leadflow/admin/v1/leads';
import { readRichStatus } from '@leadflow/service-kit/rich-status';
import { expect } from 'chai';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { bearer, call } from '../../../support/grpc.js';
import { validLeadBody } from '../../../support/leads.js';
import { sqliteDatabase } from '../../../support/test-database.js';

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: ServiceError) => error,
  );
}

function leadIdOf(answer: Awaited<ReturnType<TestDistribution['submit']>>): string {
  const outcome = answer.outcome;
  if (!outcome) throw new Error('no outcome');
  return outcome.value.leadId;
}

describe('admin service: finding and listing leads', () => {
  let stack: TestDistribution;
  let buyers: TestBuyerServer;
  let alpha: { id: string; key: string };
  let beta: { id: string; key: string };
  /** Alpha's five leads, oldest first; none sold (there is no buyer yet). */
  const alphaLeads: { leadId: string; clickid: string }[] = [];
  let soldLeadId: string;
  let buyerId: string;
  const auth = () => bearer(stack.service.adminToken);
  const findLead = (clickid: string, publisherId = '') =>
    call(stack.admin.findLead.bind(stack.admin), { clickid, publisherId }, auth());
  const listLeads = (request: Partial<ListLeadsRequest>) =>
    call(
      stack.admin.listLeads.bind(stack.admin),
      {
        pageSize: 0,
        pageToken: '',
        status: 0,
        publisherId: '',
        buyerId: '',
        startTime: undefined,
        endTime: undefined,
        ...request,
      },
      auth(),
    );

  before(async () => {
    stack = await startTestDistribution(await sqliteDatabase());
    buyers = await startBuyerServer();
    alpha = await stack.createPublisher();
    beta = await stack.createPublisher();
    for (let i = 0; i < 5; i++) {
      const body = validLeadBody();
      alphaLeads.push({ leadId: leadIdOf(await stack.submit(alpha.key, body)), clickid: body.clickid as string });
    }
    buyers.behave('/accept', { kind: 'accept' });
    buyerId = (await stack.applyBuyers([testBuyer('lookup-buyer', buyers.url('/accept'))]))['lookup-buyer']!;
    // Beta reuses one of Alpha's clickids: a clickid is unique per publisher only.
    const answer = await stack.submit(beta.key, validLeadBody({ clickid: alphaLeads[0]!.clickid }));
    expect(answer.outcome?.$case).to.equal('sold');
    soldLeadId = leadIdOf(answer);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
  });

  describe('FindLead', () => {
    it("finds a publisher's lead by the clickid it sent, masked, with its attempts", async () => {
      const { lead } = await findLead(alphaLeads[1]!.clickid, alpha.id);
      expect(lead).to.include({
        leadId: alphaLeads[1]!.leadId,
        publisherId: alpha.id,
        clickid: alphaLeads[1]!.clickid,
        status: LeadStatus.LEAD_STATUS_REJECTED,
      });
      expect(lead!.fields.ssn).to.equal('*****6789');
      const sold = (await findLead(alphaLeads[0]!.clickid, beta.id)).lead!;
      expect(sold).to.include({ leadId: soldLeadId, status: LeadStatus.LEAD_STATUS_SOLD, buyerId });
      expect(sold.attempts).to.have.length(1);
    });

    it("does not find another publisher's clickid", async () => {
      const error = await failure(findLead(alphaLeads[1]!.clickid, beta.id));
      expect(error.code).to.equal(status.NOT_FOUND);
      expect(readRichStatus(error.metadata)!.errorInfo).to.include({ reason: 'LEAD_NOT_FOUND', domain: 'leadflow.io' });
    });

    it('answers NOT_FOUND for a clickid no publisher sent', async () => {
      expect((await failure(findLead('never-sent'))).code).to.equal(status.NOT_FOUND);
    });

    it('finds by clickid alone when one publisher used it, and asks for the publisher when several did', async () => {
      expect((await findLead(alphaLeads[2]!.clickid)).lead!.leadId).to.equal(alphaLeads[2]!.leadId);
      const error = await failure(findLead(alphaLeads[0]!.clickid));
      expect(error.code).to.equal(status.FAILED_PRECONDITION);
      expect(readRichStatus(error.metadata)!.errorInfo!.reason).to.equal('CLICKID_AMBIGUOUS');
    });

    it('refuses an empty clickid with a field violation', async () => {
      const error = await failure(findLead(''));
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
      expect(readRichStatus(error.metadata)!.badRequest!.fieldViolations[0]).to.include({
        field: 'clickid',
        reason: 'FIELD_REQUIRED',
      });
    });

    it('needs the admin token', async () => {
      const error = await failure(
        call(stack.admin.findLead.bind(stack.admin), { clickid: alphaLeads[1]!.clickid, publisherId: '' }),
      );
      expect(error.code).to.equal(status.UNAUTHENTICATED);
    });
  });

  describe('GetLead', () => {
    it('is an admin method and no longer a DistributionService one', async () => {
      const { lead } = await call(stack.admin.getLead.bind(stack.admin), { leadId: soldLeadId }, auth());
      expect(lead!.leadId).to.equal(soldLeadId);
      const client = stack.client as unknown as { makeUnaryRequest: (...args: unknown[]) => void };
      const error = await new Promise<ServiceError>((resolve) =>
        client.makeUnaryRequest(
          '/leadflow.distribution.v1.DistributionService/GetLead',
          (value: Buffer) => value,
          (value: Buffer) => value,
          Buffer.alloc(0),
          (failed: ServiceError) => resolve(failed),
        ),
      );
      expect(error.code).to.equal(status.UNIMPLEMENTED);
    });
  });

  describe('ListLeads', () => {
    /** Every page of a list, and how many calls it took. */
    async function allPages(request: Partial<ListLeadsRequest>): Promise<{ leads: LeadRecord[]; pages: number }> {
      const leads: LeadRecord[] = [];
      let pageToken = '';
      let pages = 0;
      do {
        const page = await listLeads({ ...request, pageToken });
        leads.push(...page.leads);
        pageToken = page.nextPageToken;
        pages += 1;
      } while (pageToken !== '');
      return { leads, pages };
    }

    it("pages through a publisher's leads, newest first, each once", async () => {
      const { leads, pages } = await allPages({ publisherId: alpha.id, pageSize: 2 });
      expect(pages).to.equal(3);
      expect(leads.map((lead) => lead.leadId)).to.deep.equal(alphaLeads.map((lead) => lead.leadId).reverse());
      // A list shows no audit trail: GetLead has it.
      expect(leads.every((lead) => lead.attempts.length === 0 && lead.fields.ssn === '*****6789')).to.equal(true);
    });

    it('ends with an empty next_page_token on an exactly full page', async () => {
      const first = await listLeads({ publisherId: alpha.id, pageSize: 5 });
      expect(first.leads).to.have.length(5);
      expect(first.nextPageToken).to.equal('');
    });

    it('filters by status, buyer and time range', async () => {
      expect((await listLeads({ status: LeadStatus.LEAD_STATUS_SOLD })).leads.map((lead) => lead.leadId)).to.deep.equal(
        [soldLeadId],
      );
      expect((await listLeads({ buyerId })).leads.map((lead) => lead.leadId)).to.deep.equal([soldLeadId]);
      expect((await listLeads({ status: LeadStatus.LEAD_STATUS_REJECTED, publisherId: beta.id })).leads).to.deep.equal(
        [],
      );
      const newest = (await listLeads({ pageSize: 1 })).leads[0]!;
      expect(newest.leadId).to.equal(soldLeadId);
      const from = await listLeads({ startTime: newest.createTime });
      expect(from.leads.map((lead) => lead.leadId)).to.include(soldLeadId);
      const before = await listLeads({ endTime: newest.createTime, publisherId: beta.id });
      expect(before.leads).to.deep.equal([]);
    });

    it('refuses a token that is not one, or that another filter made, with INVALID_ARGUMENT', async () => {
      for (const pageToken of ['not-a-token', Buffer.from('{"c":[1,"x"],"s":"forged"}').toString('base64url')]) {
        const error = await failure(listLeads({ pageToken }));
        expect(error.code, pageToken).to.equal(status.INVALID_ARGUMENT);
        const details = readRichStatus(error.metadata)!;
        expect(details.errorInfo!.reason).to.equal('INVALID_PAGE_TOKEN');
        expect(details.badRequest!.fieldViolations[0]!.field).to.equal('page_token');
      }
      const { nextPageToken } = await listLeads({ publisherId: alpha.id, pageSize: 2 });
      expect(nextPageToken).to.not.equal('');
      const error = await failure(listLeads({ publisherId: beta.id, pageSize: 2, pageToken: nextPageToken }));
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
      // The same filter with another page size may go on.
      expect((await listLeads({ publisherId: alpha.id, pageSize: 3, pageToken: nextPageToken })).leads).to.have.length(
        3,
      );
    });

    it('refuses a negative page size', async () => {
      const error = await failure(listLeads({ pageSize: -1 }));
      expect(error.code).to.equal(status.INVALID_ARGUMENT);
      expect(readRichStatus(error.metadata)!.badRequest!.fieldViolations[0]!.field).to.equal('page_size');
    });
  });

  it('pages publishers and buyers too', async () => {
    await stack.createPublisher();
    const seen: string[] = [];
    let pageToken = '';
    do {
      const page = await call(stack.admin.listPublishers.bind(stack.admin), { pageSize: 1, pageToken }, auth());
      expect(page.publishers.length).to.be.at.most(1);
      seen.push(...page.publishers.map((publisher) => publisher.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== '');
    expect(seen).to.have.length(3);
    expect(seen).to.include.members([alpha.id, beta.id]);
    const buyersPage = await call(stack.admin.listBuyers.bind(stack.admin), { pageSize: 1, pageToken: '' }, auth());
    expect(buyersPage.buyers.map((buyer) => buyer.id)).to.deep.equal([buyerId]);
    expect(buyersPage.nextPageToken).to.equal('');
  });
});
