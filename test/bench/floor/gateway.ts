// The floor's gateway: Fastify taking the intake post and making one grpc-js unary call, nothing else.
import { credentials, Metadata } from '@grpc/grpc-js';
import {
  DistributionServiceClient,
  type SubmitLeadRequest,
  type SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import Fastify from 'fastify';
import { requiredEnv } from './env.js';
import { toSubmitLeadRequest } from './submit-request.js';

const DEADLINE_MS = 5_000;

const client = new DistributionServiceClient(
  `127.0.0.1:${requiredEnv('FLOOR_GRPC_PORT')}`,
  credentials.createInsecure(),
);

function submitLead(request: SubmitLeadRequest): Promise<SubmitLeadResponse> {
  return new Promise((resolve, reject) => {
    client.submitLead(request, new Metadata(), { deadline: Date.now() + DEADLINE_MS }, (error, response) =>
      error ? reject(error) : resolve(response),
    );
  });
}

const app = Fastify({ bodyLimit: 64 * 1024 });

app.get('/health/ready', (_request, reply) => {
  client.waitForReady(Date.now() + 1_000, (error) => {
    void reply.code(error ? 503 : 200).send({ ready: !error });
  });
  return reply;
});

app.post<{ Params: { key: string } }>('/api/intake/:key', async (request, reply) => {
  const started = performance.now();
  const submit = toSubmitLeadRequest(request.params.key, request.body);
  if (!submit) return reply.code(400).send({ status: 'error', errors: { body: 'must be a JSON object' } });
  const { outcome } = await submitLead(submit);
  const processingTime = Math.round((performance.now() - started) * 100) / 100;
  if (outcome?.$case === 'sold') {
    const { leadId, payoutCents, redirectUrl } = outcome.value;
    return { leadId, status: 'sold', price: (payoutCents / 100).toFixed(2), redirectUrl, processingTime };
  }
  if (outcome?.$case !== 'rejected') return reply.code(500).send({ status: 'error', message: 'unexpected outcome' });
  return { leadId: outcome.value.leadId, status: 'rejected', reason: outcome.value.reason, processingTime };
});

await app.listen({ host: '127.0.0.1', port: Number(requiredEnv('FLOOR_HTTP_PORT')) });
