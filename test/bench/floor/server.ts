// The floor's distribution side: a grpc-js server whose SubmitLead stores the lead, posts it to the one
// buyer, stores the buyer's answer and answers; nothing else.
import { type handleUnaryCall, Server, ServerCredentials, status } from '@grpc/grpc-js';
import {
  type DistributionServiceServer,
  DistributionServiceService,
  Lead,
  SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { BuyerPost } from './buyer-post.js';
import { requiredEnv } from './env.js';
import { createLeadTable, insertLead, openDatabase, recordAnswer } from './lead-table.js';

const db = openDatabase(process.env.DATABASE_URL || undefined, requiredEnv('FLOOR_DATA_DIR'));
await createLeadTable(db);
const buyer = new BuyerPost(requiredEnv('FLOOR_BUYER_URL'));

async function sell(lead: Lead): Promise<SubmitLeadResponse> {
  const leadId = await insertLead(db, lead);
  const { accepted, priceCents } = await buyer.send(leadId, lead);
  await recordAnswer(db, leadId, accepted, priceCents);
  if (!accepted)
    return SubmitLeadResponse.fromPartial({
      outcome: { $case: 'rejected', value: { leadId, reason: 'buyer declined' } },
    });
  return SubmitLeadResponse.fromPartial({
    outcome: { $case: 'sold', value: { leadId, payoutCents: priceCents, buyerId: 'floor-buyer' } },
  });
}

const unimplemented: handleUnaryCall<unknown, never> = (_call, callback) => {
  callback({ code: status.UNIMPLEMENTED, details: 'the floor implements SubmitLead only' });
};

const floor: DistributionServiceServer = {
  submitLead: (call, callback) => {
    sell(call.request.lead ?? Lead.fromPartial({})).then(
      (response) => callback(null, response),
      (error: Error) => callback({ code: status.INTERNAL, details: error.message }),
    );
  },
  resolvePublisherKey: unimplemented,
  getLead: unimplemented,
  getLeadStatus: unimplemented,
};

const server = new Server();
server.addService(DistributionServiceService, floor);

server.bindAsync(`127.0.0.1:${requiredEnv('FLOOR_GRPC_PORT')}`, ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
});
