// The floor's distribution side: a grpc-js server whose SubmitLead only stores the lead and answers.
import { type handleUnaryCall, Server, ServerCredentials, status } from '@grpc/grpc-js';
import {
  type DistributionServiceServer,
  DistributionServiceService,
  Lead,
  SubmitLeadResponse,
} from '../../../proto/generated/leadflow/distribution/v1/distribution.js';
import { requiredEnv } from './env.js';
import { createLeadTable, insertLead, openDatabase } from './lead-table.js';

const db = openDatabase(process.env.DATABASE_URL || undefined, requiredEnv('FLOOR_DATA_DIR'));
await createLeadTable(db);

const unimplemented: handleUnaryCall<unknown, never> = (_call, callback) => {
  callback({ code: status.UNIMPLEMENTED, details: 'the floor implements SubmitLead only' });
};

const floor: DistributionServiceServer = {
  submitLead: (call, callback) => {
    insertLead(db, call.request.lead ?? Lead.fromPartial({})).then(
      (leadId) =>
        callback(
          null,
          SubmitLeadResponse.fromPartial({ outcome: { $case: 'rejected', value: { leadId, reason: 'floor' } } }),
        ),
      (error: Error) => callback({ code: status.INTERNAL, details: error.message }),
    );
  },
  resolvePublisherKey: unimplemented,
  getLead: unimplemented,
};

const server = new Server();
server.addService(DistributionServiceService, floor);

server.bindAsync(`127.0.0.1:${requiredEnv('FLOOR_GRPC_PORT')}`, ServerCredentials.createInsecure(), (error) => {
  if (error) throw error;
});
