import type { LeadReturn as LeadReturnMessage } from '@leadflow/proto/leadflow/admin/v1/leads';
import type { LeadReturn } from './lead-return.js';

export function leadReturnView(leadReturn: LeadReturn): LeadReturnMessage {
  return {
    returnId: leadReturn.id,
    leadId: leadReturn.leadId,
    requestId: leadReturn.requestId,
    buyerId: leadReturn.buyerId,
    publisherId: leadReturn.publisherId,
    reason: leadReturn.reason,
    note: leadReturn.note,
    creditCents: leadReturn.creditCents,
    clawbackCents: leadReturn.clawbackCents,
    marginCents: leadReturn.marginCents,
    saleTime: new Date(leadReturn.soldAt),
    returnTime: new Date(leadReturn.returnedAt),
  };
}
