import type { AdminServiceServer } from '@leadflow/proto/leadflow/admin/v1/admin';
import type {
  FindLeadRequest,
  GetLeadRequest,
  ListLeadsRequest,
  ListUnconfirmedLeadsRequest,
  UnconfirmedLead,
} from '@leadflow/proto/leadflow/admin/v1/leads';
import { leadStatuses } from '@leadflow/service-kit/admin-enums';
import type { LeadStatus } from '../db/schema.js';
import { invalidField } from '../errors.js';
import type { LeadFilter } from '../leads/lead.repository.js';
import type { FoundLead, LeadLookup } from '../leads/lead-lookup.js';
import { leadView } from '../leads/lead-view.js';
import { requestTimeMs } from '../request-time.js';
import { leadReturnView } from '../returns/lead-return-view.js';
import type { LeadReturns, ReturnRequest } from '../returns/lead-returns.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import type { LeadResolution } from '../selling/lead-resolution.js';
import { cursorOf, pageFrom, pageSizeOf } from './pages.js';
import type { UnaryMethods } from './unary.js';

export interface AdminLeadDependencies {
  lookup: LeadLookup;
  resolution: LeadResolution;
  returns: LeadReturns;
  cipher: PiiCipher;
}

type LeadMethods = Pick<
  AdminServiceServer,
  'getLead' | 'findLead' | 'listLeads' | 'listUnconfirmedLeads' | 'resolveLead' | 'returnLead'
>;

const INVALID_LEAD_FILTER = 'INVALID_LEAD_FILTER';

/** The request's filter in storage's terms; a status this build does not know, or a time out of range, is refused. */
function leadFilter(request: ListLeadsRequest): LeadFilter {
  const status = request.status === 0 ? undefined : leadStatuses.nameOf(request.status);
  if (request.status !== 0 && status === undefined) {
    throw invalidField('status', 'is not a lead status', { reason: INVALID_LEAD_FILTER });
  }
  return {
    status: status as LeadStatus | undefined,
    publisherId: request.publisherId || undefined,
    buyerId: request.buyerId || undefined,
    fromMs: requestTimeMs('start_time', request.startTime, INVALID_LEAD_FILTER),
    toMs: requestTimeMs('end_time', request.endTime, INVALID_LEAD_FILTER),
  };
}

/** The admin service's lead methods: look-ups (masked) and the settling of unconfirmed leads. */
export function adminLeadHandlers(deps: AdminLeadDependencies, admin: UnaryMethods): LeadMethods {
  const { lookup, resolution, returns, cipher } = deps;
  const shown = async ({ lead, attempts, settlements }: FoundLead) => {
    const leadReturn = await returns.ofLead(lead.id);
    const view = leadView(lead, attempts, cipher, settlements);
    return { lead: { ...view, leadReturn: leadReturn && leadReturnView(leadReturn) } };
  };
  return {
    getLead: admin('GetLead', async (request: GetLeadRequest) => shown(await lookup.get(request.leadId))),
    findLead: admin('FindLead', async (request: FindLeadRequest) =>
      shown(await lookup.findByClickid(request.clickid, request.publisherId || undefined)),
    ),
    listLeads: admin('ListLeads', async (request: ListLeadsRequest) => {
      const filter = leadFilter(request);
      const scope = ['ListLeads', filter];
      const size = pageSizeOf(request);
      const cursor = cursorOf(request, scope);
      const after = cursor ? { createdAt: Number(cursor[0]), id: String(cursor[1]) } : undefined;
      const page = pageFrom(
        await lookup.list(filter, after, size + 1),
        size,
        (lead) => [lead.createdAt, lead.id],
        scope,
      );
      return { leads: page.items.map((lead) => leadView(lead, [], cipher)), nextPageToken: page.nextPageToken };
    }),
    listUnconfirmedLeads: admin('ListUnconfirmedLeads', async (request: ListUnconfirmedLeadsRequest) => {
      const scope = ['ListUnconfirmedLeads'];
      const size = pageSizeOf(request);
      const cursor = cursorOf(request, scope);
      const after = cursor ? { postedAt: Number(cursor[0]), postId: String(cursor[1]) } : undefined;
      const page = pageFrom(
        await resolution.listUnconfirmed(size + 1, after),
        size,
        (lead) => [lead.postedAt, lead.postId],
        scope,
      );
      const leads: UnconfirmedLead[] = page.items.map((lead) => ({
        leadId: lead.leadId,
        publisherId: lead.publisherId,
        clickid: lead.clickid,
        buyerId: lead.buyerId,
        postId: lead.postId,
        postTime: new Date(lead.postedAt),
        test: lead.test,
      }));
      return { leads, nextPageToken: page.nextPageToken };
    }),
    resolveLead: admin('ResolveLead', async (request: { leadId: string; sold: boolean; chargeCents: number }) => {
      const verdict = request.sold
        ? { sold: true as const, chargeCents: request.chargeCents > 0 ? request.chargeCents : undefined }
        : { sold: false as const };
      const resolved = await resolution.resolve(request.leadId, verdict, 'operator');
      return { ...resolved, status: leadStatuses.valueOf(resolved.status) };
    }),
    returnLead: admin('ReturnLead', async (request: ReturnRequest) => {
      const { leadReturn, alreadyRecorded } = await returns.record(request);
      return { leadReturn: leadReturnView(leadReturn), alreadyRecorded };
    }),
  };
}
