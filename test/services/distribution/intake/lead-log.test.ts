import { logFormat } from '@leadflow/service-kit/config';
import { createLogger } from '@leadflow/service-kit/logger';
import { SpanKind } from '@opentelemetry/api';
import { expect } from 'chai';
import { pino } from 'pino';
import { startBuyerServer, type TestBuyerServer } from '../../../support/buyer-server.js';
import { testBuyer } from '../../../support/buyers.js';
import { bearer, call } from '../../../support/grpc.js';
import { validLeadBody } from '../../../support/leads.js';
import { startTestStack, type TestStack } from '../../../support/stack.js';
import { sqliteDatabase, type TestDatabase } from '../../../support/test-database.js';
import { testSpanExporter } from '../../../support/tracing.js';

const SUBMIT_LEAD = 'leadflow.distribution.v1.DistributionService/SubmitLead';
const BUYER_PATH = '/leads/logged';
const BUYER_SECRET = 'hdrSecretCANARY7731';

/** A lead whose every personal value is a string found nowhere else, so that any leak of one is found. */
const PII = {
  ssn: '531-87-4409',
  firstName: 'Quillonzaff',
  lastName: 'Brewsterovic',
  email: 'quillonzaff.canary@example.net',
  dob: '1979-11-23',
  address: '8812 Zyxwarble Lane',
  city: 'Plumvicket',
  homePhone: '4155559182',
  cellPhone: '4155557364',
  bankAba: '011000015',
  bankAccountNumber: '778899001122',
  userIp: '198.51.100.77',
};
/** The values as they may be stored or logged after normalisation, too. */
const PII_FORMS = [...Object.values(PII), '531874409', 'brewsterovic', 'quillonzaff'];

function memoryLog(): {
  logger: ReturnType<typeof createLogger>;
  lines: () => Record<string, unknown>[];
  raw: string[];
} {
  const raw: string[] = [];
  const logger = createLogger('leadflow-distribution', 'debug', { write: (line: string) => void raw.push(line) });
  return { logger, raw, lines: () => raw.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

function expectNoPii(raw: string[], where: string): void {
  for (const line of raw) {
    const lower = line.toLowerCase();
    for (const value of PII_FORMS)
      expect(lower, `${where} logged a personal value: ${line}`).to.not.include(value.toLowerCase());
  }
}

describe('observability: one log line per lead and per admin action', function () {
  this.timeout(60_000);
  const exporter = testSpanExporter();
  let database: TestDatabase;
  let buyers: TestBuyerServer;
  let stack: TestStack;
  const service = memoryLog();
  const gatewayRaw: string[] = [];

  before(async () => {
    database = await sqliteDatabase();
    buyers = await startBuyerServer();
    buyers.behave(BUYER_PATH, { kind: 'accept' });
    stack = await startTestStack(database, {
      distributionLogger: service.logger,
      gatewayLogger: pino({ level: 'info' }, { write: (line: string) => void gatewayRaw.push(line) }),
    });
    await stack.distribution.applyBuyers([
      testBuyer('acme-lending', buyers.url(BUYER_PATH), { post: { headers: { 'x-api-key': BUYER_SECRET } } }),
    ]);
  });
  after(async () => {
    await stack?.close();
    await buyers?.close();
    await database?.drop();
  });
  beforeEach(() => exporter.reset());

  it('logs a sold lead once at info: ids, outcome, buyer id and name, processing time, trace and span id; no personal value', async () => {
    const { id: publisherId, key } = await stack.distribution.createPublisher();
    const answer = await stack.post(key, validLeadBody(PII));
    expect(answer.body.status).to.equal('sold');
    const leadId = answer.body.leadId as string;

    const leadLines = service.lines().filter((line) => JSON.stringify(line).includes(leadId));
    expect(leadLines, 'lines naming the lead').to.have.length(1);
    const line = leadLines[0]!;
    const server = exporter
      .getFinishedSpans()
      .find((span) => span.kind === SpanKind.SERVER && span.name === SUBMIT_LEAD)!;
    expect(line).to.include({
      level: 30,
      msg: 'lead answered',
      leadId,
      publisherId,
      outcome: 'sold',
      buyerId: answer.body.buyerId,
      buyerName: 'acme-lending',
      trace_id: server.spanContext().traceId,
      span_id: server.spanContext().spanId,
    });
    expect(line.processingTime).to.be.a('number').above(0);
    expect(line.time, 'epoch milliseconds for machines').to.be.a('number');
    expectNoPii(service.raw, 'the distribution service');
    expectNoPii(gatewayRaw, 'the gateway');
  });

  it('logs an invalid lead once, naming its fields but never their values', async () => {
    const { key } = await stack.distribution.createPublisher();
    const answer = await stack.post(key, validLeadBody({ ...PII, email: 'not-an-email-Quillonzaff', zip: 'ABCDE' }));
    expect(answer.status).to.equal(400);
    const line = service
      .lines()
      .filter((entry) => entry.msg === 'lead answered' && entry.outcome === 'invalid')
      .at(-1)!;
    expect(line.invalidFields).to.include.members(['email', 'zip']);
    expect(line).to.not.have.property('leadId');
    expectNoPii(service.raw, 'the distribution service');
  });

  it('logs each admin action with who called and what it named, never a key, token or buyer credential', async () => {
    const admin = stack.distribution.admin;
    const token = stack.distribution.service.adminToken;
    const created = await call(
      admin.createPublisher.bind(admin),
      { name: 'Audited Media', rateLimitPerMinute: 60, payoutShareBps: 7000 },
      bearer(token),
    );
    await call(admin.setBuyerActive.bind(admin), { buyer: 'acme-lending', active: true }, bearer(token));
    const refused = await call(admin.listBuyers.bind(admin), { pageSize: 0, pageToken: '' }, bearer(`${token}x`)).then(
      () => 'answered',
      () => 'refused',
    );
    expect(refused).to.equal('refused');

    const actions = service.lines().filter((line) => line.msg === 'admin action');
    const create = actions.find(
      (line) => line.method === 'CreatePublisher' && (line.request as { name?: string }).name === 'Audited Media',
    )!;
    expect(create).to.deep.include({
      level: 30,
      outcome: 'ok',
      request: { name: 'Audited Media', rateLimitPerMinute: 60, payoutShareBps: 7000 },
    });
    expect((create.caller as { peer: string }).peer).to.match(/127\.0\.0\.1/);
    expect(actions.find((line) => line.method === 'SetBuyerActive')).to.deep.include({
      outcome: 'ok',
      request: { buyer: 'acme-lending', active: true },
    });
    const apply = actions.find((line) => line.method === 'ApplyBuyers')!;
    expect(apply.request).to.deep.equal({ dryRun: false });
    expect(actions.find((line) => line.method === 'ListBuyers' && line.outcome === 'permission_denied')).to.include({
      level: 40,
    });

    const text = service.raw.join('');
    for (const secret of [created.key, token, BUYER_SECRET]) expect(text).to.not.include(secret);
  });
});

describe('observability: log format', () => {
  it('is JSON with numeric levels and epoch times off a terminal, readable lines on one, as LEADFLOW_LOG_FORMAT overrides', () => {
    expect(logFormat({}, false)).to.equal('json');
    expect(logFormat({}, true)).to.equal('pretty');
    expect(logFormat({ LEADFLOW_LOG_FORMAT: 'json' }, true)).to.equal('json');
    expect(logFormat({ LEADFLOW_LOG_FORMAT: 'pretty' }, false)).to.equal('pretty');
    expect(() => logFormat({ LEADFLOW_LOG_FORMAT: 'xml' }, false)).to.throw(
      /LEADFLOW_LOG_FORMAT must be one of json, pretty/,
    );

    const written: string[] = [];
    const pretty = createLogger(
      'leadflow-gateway',
      'info',
      { write: (line: string) => void written.push(line) },
      'pretty',
    );
    pretty.info({ leadId: 'lead_1', outcome: 'sold', reason: 'two words' }, 'lead answered');
    expect(written).to.have.length(1);
    expect(written[0]).to.match(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}leadflow-gateway: lead answered leadId=lead_1 outcome=sold reason="two words"\n$/,
    );

    written.length = 0;
    createLogger('leadflow-gateway', 'info', { write: (line: string) => void written.push(line) }, 'json').warn(
      'careful',
    );
    const entry = JSON.parse(written[0]!);
    expect(entry).to.include({ level: 40, msg: 'careful', service: 'leadflow-gateway' });
    expect(entry.time).to.be.a('number');
  });
});
