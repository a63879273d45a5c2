import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { credentials } from '@grpc/grpc-js';
import { isLeadField } from '@leadflow/core/lead-fields';
import {
  DistributionServiceClient,
  Lead,
  type SubmitLeadResponse,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { Admin } from '../cluster/support/admin.js';
import { cleanUp, type DistributionProcess, startDistributionProcess, tempDir } from '../cluster/support/processes.js';
import { testBuyer } from '../support/buyers.js';
import { reportFigures } from '../support/figures.js';
import { call } from '../support/grpc.js';
import { check, type HealthClient, healthClient } from '../support/grpc-clients.js';
import { validLeadBody } from '../support/leads.js';
import { freePort } from '../support/ports.js';
import { productionSecretsEnv } from '../support/test-database.js';

/**
 * Replies a hostile buyer can send within the 64 KiB cap, with the parser that reads each one, and the
 * small rejection the same buyer sends in the control run.
 */
const HOSTILE: Record<string, { body: string; response: Record<string, unknown>; benign: string }> = {
  // The reply of the issue: 26 s of xpath@0.0.34 on the event loop.
  'sibling-flood': {
    body: `<response>${'<status/>'.repeat(7000)}</response>`,
    response: { format: 'xml', accepted: { path: '/response/status', equals: 'accepted' } },
    benign: '<response><status>declined</status></response>',
  },
  // Just under the markup caps: every path walks 500 elements.
  'wide-at-cap': {
    body: `<r>${Array.from({ length: 500 }, (_, i) => `<status x="${i}"/>`).join('')}</r>`,
    response: {
      format: 'xml',
      accepted: { path: "//status[@x='499']/@x", equals: 'accepted' },
      reason: "//*[@x='498']/@x",
      reference: 'count(//status)',
    },
    benign: '<r><status x="499"/></r>',
  },
  // Namespaces declared 500 levels deep (quadratic in xmldom): refused for depth before it is parsed.
  'deep-namespaces': {
    body: `${'<a xmlns:x="urn:x">'.repeat(500)}${'</a>'.repeat(500)}`,
    response: { format: 'xml', accepted: { path: '//a/x:b', equals: 'accepted' } },
    benign: '<a xmlns:x="urn:x"><x:b>declined</x:b></a>',
  },
  'deep-json': {
    body: `${'['.repeat(32_000)}${']'.repeat(32_000)}`,
    response: { format: 'json', accepted: { path: '$.status', equals: 'accepted' } },
    benign: '{"status": "declined"}',
  },
  // The most complex patterns a text parser may hold, on the longest text reply read.
  'text-at-cap': {
    body: `${'a'.repeat(2047)}!`,
    response: { format: 'text', accepted: { path: '^(?:.*a){30}(x)', equals: 'accepted' }, reason: '(?:.*a){16}(y)' },
    benign: `${'a'.repeat(16)}y`,
  },
  'long-verdict': {
    body: JSON.stringify({ status: 'a'.repeat(60_000) }),
    response: { format: 'json', accepted: { path: '$.status', matches: '^(?:.*a){30}$' } },
    benign: '{"status": "declined"}',
  },
};

const LEADS = 3;

/**
 * A hostile buyer HTTP server against a distribution service running as its own process: while leads are
 * being sold to buyers whose replies would stall a general parser, the service's gRPC health check is
 * asked every few milliseconds and its own event-loop delay is read from its metrics.
 */
describe('hostile buyer replies: a running distribution service keeps answering while they are read', function () {
  this.timeout(180_000);
  let dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let distribution: DistributionProcess | undefined;
  let buyer: Server | undefined;
  let admin: Admin | undefined;
  let client: DistributionServiceClient | undefined;
  let health: HealthClient | undefined;
  let metricsUrl = '';
  let key = '';
  let hostile = false;
  const served: string[] = [];

  before(async () => {
    buyer = createServer((request, response) => {
      const shape = (request.url ?? '').slice(1);
      if (hostile) served.push(shape);
      request.resume();
      request.on('end', () => {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        response.end(hostile ? HOSTILE[shape]?.body : HOSTILE[shape]?.benign);
      });
    });
    await new Promise<void>((resolve) => buyer!.listen(0, '127.0.0.1', resolve));
    const buyerUrl = `http://127.0.0.1:${(buyer.address() as AddressInfo).port}`;

    dataDir = await tempDir('lf-hostile-');
    const secrets = productionSecretsEnv();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    distribution = await startDistributionProcess('distribution', {
      ...secrets,
      LEADFLOW_DATA_DIR: dataDir.path,
      LEADFLOW_METRICS_PORT: String(metricsPort),
      LEADFLOW_LOG_LEVEL: 'error',
    });
    admin = new Admin(distribution.address, secrets.LEADFLOW_ADMIN_TOKEN);
    await admin.applyBuyers(
      Object.entries(HOSTILE).map(([shape, { response }]) =>
        testBuyer(shape, `${buyerUrl}/${shape}`, { post: { response } }),
      ),
    );
    client = new DistributionServiceClient(distribution.address, credentials.createInsecure());
    health = healthClient(distribution.address);
    ({ key } = await admin.createPublisher('Hostile test publisher', 1_000_000));
    // Warms the service's code paths up, so that both runs below measure a service in its stride.
    await submit();
  });

  after(async () => {
    await cleanUp([
      () => client?.close(),
      () => health?.close(),
      () => admin?.close(),
      () => distribution?.handle.kill(),
      () => buyer && new Promise((resolve) => buyer!.close(resolve)),
      () => dataDir?.remove(),
    ]);
  });

  async function eventLoopLagMaxMs(): Promise<number> {
    const text = await (await fetch(metricsUrl)).text();
    const line = text.split('\n').find((row) => row.startsWith('nodejs_eventloop_lag_max_seconds '));
    return Number(line?.split(' ')[1]) * 1000;
  }

  function submit(): Promise<SubmitLeadResponse> {
    const lead: Partial<Lead> = {};
    for (const [field, value] of Object.entries(validLeadBody()))
      if (isLeadField(field) && typeof value === 'string') lead[field] = value;
    return call(
      client!.submitLead.bind(client),
      { webmasterKey: key, lead: Lead.fromPartial(lead), nonStringFields: [] },
      undefined,
      {
        deadline: Date.now() + 120_000,
      },
    );
  }

  /** Sells LEADS leads while probing; the slowest probe and the service's own worst event-loop delay. */
  async function sellWhileProbing(): Promise<{
    answers: SubmitLeadResponse[];
    slowestProbeMs: number;
    lagMaxMs: number;
  }> {
    // Reading the metric resets it.
    await eventLoopLagMaxMs();
    let selling = true;
    let slowestProbeMs = 0;
    const probing = (async () => {
      while (selling) {
        const started = performance.now();
        expect(await check(health!, '')).to.equal('SERVING');
        slowestProbeMs = Math.max(slowestProbeMs, performance.now() - started);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const answers: SubmitLeadResponse[] = [];
    try {
      for (let lead = 0; lead < LEADS; lead++) answers.push(await submit());
    } finally {
      selling = false;
      await probing;
    }
    return { answers, slowestProbeMs, lagMaxMs: await eventLoopLagMaxMs() };
  }

  it('answers its health check within milliseconds, and reads every hostile reply as an error', async () => {
    const control = await sellWhileProbing();
    for (const answer of control.answers) expect(answer.outcome?.$case).to.equal('rejected');
    hostile = true;
    const { answers, slowestProbeMs, lagMaxMs } = await sellWhileProbing();
    const replies = LEADS * Object.keys(HOSTILE).length;
    reportFigures(
      `      ${replies} hostile replies: worst health probe ${slowestProbeMs.toFixed(1)} ms, event-loop delay max ${lagMaxMs.toFixed(1)} ms` +
        ` (benign replies: ${control.slowestProbeMs.toFixed(1)} ms, ${control.lagMaxMs.toFixed(1)} ms)`,
    );

    expect(served).to.have.length(replies);
    for (const answer of answers) expect(answer.outcome?.$case).to.equal('rejected');
    // Generous against a busy shared machine; the old parser held the loop for 26 s on the first reply.
    expect(slowestProbeMs).to.be.below(1000);
    expect(lagMaxMs).to.be.below(1000);
  });
});
