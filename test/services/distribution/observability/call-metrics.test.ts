import {
  credentials,
  Metadata,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServiceDefinition,
  type ServiceError,
  status,
} from '@grpc/grpc-js';
import { callMetricsInterceptor } from '@leadflow/distribution/src/observability/call-metrics';
import { DistributionMetrics } from '@leadflow/distribution/src/observability/metrics';
import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { startTestDistribution, type TestDistribution } from '../../../support/distribution.js';
import { call } from '../../../support/grpc.js';
import { sampled, scrape } from '../../../support/metrics-text.js';
import { sqliteDatabase } from '../../../support/test-database.js';

const HANDLED = 'leadflow_grpc_server_handled_total';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => expect.fail('the call succeeded'),
    (error: ServiceError) => error,
  );
}

describe('gRPC server metrics: calls refused before a handler, or ended by the caller', () => {
  describe('on the distribution service', () => {
    let stack: TestDistribution;
    const handled = async (labels: Record<string, string>) =>
      sampled((await scrape(`http://127.0.0.1:${stack.service.metricsPort}/metrics`)).text, HANDLED, labels) ?? 0;

    before(async () => {
      stack = await startTestDistribution(await sqliteDatabase());
    });
    after(() => stack?.close());

    it('counts admin calls refused for their token, by the status the caller got', async () => {
      const method = 'leadflow.admin.v1.AdminService/ListPublishers';
      const wrong = new Metadata();
      wrong.set('authorization', 'Bearer lfadm_wrong');
      expect(
        (await failure(call(stack.admin.listPublishers.bind(stack.admin), { pageSize: 0, pageToken: '' }, wrong))).code,
      ).to.equal(status.PERMISSION_DENIED);
      expect(
        (await failure(call(stack.admin.listPublishers.bind(stack.admin), { pageSize: 0, pageToken: '' }))).code,
      ).to.equal(status.UNAUTHENTICATED);
      expect(await handled({ method, code: 'PERMISSION_DENIED' })).to.equal(1);
      expect(await handled({ method, code: 'UNAUTHENTICATED' })).to.equal(1);
    });

    it('counts calls to a method it does not serve under one bounded label', async () => {
      const client = stack.client as unknown as { makeUnaryRequest: (...args: unknown[]) => void };
      for (const path of ['/leadflow.distribution.v1.DistributionService/GetLead', '/no.such.Service/Anything']) {
        const error = await new Promise<ServiceError>((resolve) =>
          client.makeUnaryRequest(
            path,
            (value: Buffer) => value,
            (value: Buffer) => value,
            Buffer.alloc(0),
            resolve,
          ),
        );
        expect(error.code).to.equal(status.UNIMPLEMENTED);
      }
      expect(await handled({ method: 'unknown', code: 'UNIMPLEMENTED' })).to.equal(2);
      const text = (await scrape(`http://127.0.0.1:${stack.service.metricsPort}/metrics`)).text;
      expect(text).to.not.include('no.such.Service');
    });

    it('counts a request over the 1 MiB limit as RESOURCE_EXHAUSTED', async () => {
      const lead = Lead.fromPartial({ userAgent: 'x'.repeat(1024 * 1024 + 1) });
      const error = await failure(
        call(stack.client.submitLead.bind(stack.client), { webmasterKey: 'k', lead, nonStringFields: [] }),
      );
      expect(error.code).to.equal(status.RESOURCE_EXHAUSTED);
      await sleep(50);
      expect(
        await handled({
          method: 'leadflow.distribution.v1.DistributionService/SubmitLead',
          code: 'RESOURCE_EXHAUSTED',
        }),
      ).to.equal(1);
    });
  });

  describe('on a slow method', () => {
    const json = {
      serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
      deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()),
    };
    const SERVICE: ServiceDefinition = {
      Slow: {
        path: '/test.Slow/Slow',
        requestStream: false,
        responseStream: false,
        requestSerialize: json.serialize,
        requestDeserialize: json.deserialize,
        responseSerialize: json.serialize,
        responseDeserialize: json.deserialize,
      },
    };
    const HANDLER_MS = 400;
    let metrics: DistributionMetrics;
    let server: Server;
    let client: InstanceType<ReturnType<typeof makeGenericClientConstructor>>;
    const handled = async (code: string) =>
      sampled(await metrics.registry.metrics(), HANDLED, { method: 'test.Slow/Slow', code }) ?? 0;

    beforeEach(async () => {
      metrics = new DistributionMetrics(() => []);
      server = new Server({ interceptors: [callMetricsInterceptor(metrics)] });
      server.addService(SERVICE, {
        Slow: (_call: unknown, callback: (error: null, value: object) => void) =>
          setTimeout(() => callback(null, { done: true }), HANDLER_MS),
      });
      const port = await new Promise<number>((resolve, reject) =>
        server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
          error ? reject(error) : resolve(bound),
        ),
      );
      client = new (makeGenericClientConstructor(SERVICE, 'Slow'))(`127.0.0.1:${port}`, credentials.createInsecure());
    });
    afterEach(() => {
      client?.close();
      server?.forceShutdown();
    });

    const slow = (target: unknown) =>
      target as {
        Slow(request: object, options: object, callback: (error: ServiceError | null) => void): { cancel(): void };
      };

    it('counts a call past its deadline as DEADLINE_EXCEEDED, not as the OK its handler gave later', async () => {
      const error = await new Promise<ServiceError | null>((resolve) =>
        slow(client).Slow({}, { deadline: Date.now() + 100 }, resolve),
      );
      expect(error?.code).to.equal(status.DEADLINE_EXCEEDED);
      await sleep(HANDLER_MS + 100);
      expect(await handled('DEADLINE_EXCEEDED')).to.equal(1);
      expect(await handled('OK')).to.equal(0);
    });

    it('counts a call its caller cancelled as CANCELLED', async () => {
      const error = new Promise<ServiceError | null>((resolve) => {
        const pending = slow(client).Slow({}, {}, resolve);
        setTimeout(() => pending.cancel(), 100);
      });
      expect((await error)?.code).to.equal(status.CANCELLED);
      await sleep(HANDLER_MS + 100);
      expect(await handled('CANCELLED')).to.equal(1);
      expect(await handled('OK')).to.equal(0);
    });

    it('counts an answered call once, with its status', async () => {
      expect(await new Promise((resolve) => slow(client).Slow({}, {}, resolve))).to.equal(null);
      await sleep(50);
      expect(await handled('OK')).to.equal(1);
    });
  });
});
