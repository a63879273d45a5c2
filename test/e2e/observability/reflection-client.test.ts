// A client in another stack (Python's grpcio and protobuf), handed nothing but the server's
// address, lists, describes and calls every method through server reflection alone.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDescribedFiles } from '@leadflow/distribution/src/observability/descriptor-sets';
import { expect } from 'chai';
import { filesUnder } from '../../deploy/deploy-files.js';
import { startTestDistribution, type TestDistribution } from '../../support/distribution.js';
import { pythonWithGrpcOrSkip, runPython } from '../../support/python-grpc.js';
import { sqliteDatabase, type TestDatabase } from '../../support/test-database.js';

const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../support/reflection_client.py');
/** What a call may end with when the server knows the method and both sides agree on its messages. */
const BROKEN_CALL = ['UNIMPLEMENTED', 'INTERNAL', 'UNKNOWN', 'DATA_LOSS'];

interface ClientReport {
  protobuf: string;
  services: string[];
  files: Record<string, { accepted: boolean; error?: string; unknownFields?: number }>;
  /** Listed services the pool could not find, their files refused. */
  undescribed: Record<string, string>;
  methods: Record<string, { code: string; details?: string; unknownFields?: number }>;
  fields: Record<string, { name: string; jsonName: string }[]>;
}

/** protoc's json_name: each `_x` becomes `X`. */
function protocJsonName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, next: string) => next.toUpperCase());
}

describe('observability: a client built from server reflection alone (Python grpcio)', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let distribution: TestDistribution;
  let report: ClientReport;
  const described = loadDescribedFiles();
  const declaredServices = described.flatMap(({ proto }) =>
    proto.service.map((service) => ({
      name: `${proto.package}.${service.name}`,
      methods: service.method.map((method) => method.name),
    })),
  );

  before(async function () {
    const python = pythonWithGrpcOrSkip(this);
    database = await sqliteDatabase();
    distribution = await startTestDistribution(database);
    await distribution.createPublisher(); // so that listing publishers answers with every field of one
    report = JSON.parse(
      await runPython(python, [CLIENT, distribution.address, distribution.service.adminToken]),
    ) as ClientReport;
  });
  after(async () => {
    await distribution?.close();
    await database?.drop();
  });

  it('validates descriptors with the C++ pool, which applies protoc rules', () => {
    expect(report.protobuf).to.be.oneOf(['cpp', 'upb']);
  });

  it('lists every service the descriptors declare, the leadflow ones, health and reflection', () => {
    expect(report.services).to.have.members(declaredServices.map((service) => service.name));
    expect(report.services).to.include.members([
      'leadflow.distribution.v1.DistributionService',
      'leadflow.admin.v1.AdminService',
      'grpc.health.v1.Health',
      'grpc.reflection.v1.ServerReflection',
    ]);
  });

  it('gets every served file accepted by a protoc-rule descriptor pool, as protoc writes it, the leadflow ones at their paths in proto/', () => {
    for (const [name, verdict] of Object.entries(report.files))
      expect(verdict, name).to.deep.equal({ accepted: true, unknownFields: 0 });
    expect(report.undescribed).to.deep.equal({});
    const protoFiles = filesUnder('proto/leadflow')
      .filter((file) => file.endsWith('.proto'))
      .map((file) => path.posix.relative('proto', file));
    expect(protoFiles).to.not.be.empty;
    expect(Object.keys(report.files)).to.include.members(protoFiles);
  });

  it('describes every message of every method with the field names of the .proto files and their json_name', () => {
    expect(Object.keys(report.fields)).to.not.be.empty;
    for (const [message, fields] of Object.entries(report.fields)) {
      for (const field of fields) {
        expect(field.name, `${message}: field names as written in proto/ (snake_case)`).to.match(/^[a-z][a-z0-9_]*$/);
        expect(field.jsonName, `${message}.${field.name}`).to.equal(protocJsonName(field.name));
      }
    }
  });

  it('calls every method of every service, and reads every answer with no field it was not told of', () => {
    for (const service of declaredServices) {
      for (const method of service.methods) {
        const outcome = report.methods[`${service.name}.${method}`];
        expect(outcome, `${service.name}.${method} was called`).to.not.equal(undefined);
        expect(BROKEN_CALL, `${service.name}.${method}: ${outcome!.code} ${outcome!.details ?? ''}`).to.not.include(
          outcome!.code,
        );
        if (outcome!.code === 'OK')
          expect(
            outcome!.unknownFields,
            `${service.name}.${method}: fields missing from the served descriptors`,
          ).to.equal(0);
      }
    }
    for (const answered of ['grpc.health.v1.Health.Check', 'grpc.health.v1.Health.Watch'])
      expect(report.methods[answered]?.code, answered).to.equal('OK');
    const answeredLeadflow = Object.entries(report.methods).filter(
      ([name, outcome]) => name.startsWith('leadflow.') && outcome.code === 'OK',
    );
    expect(answeredLeadflow, 'leadflow methods that answer an empty request (listing the publisher made above)').to.not
      .be.empty;
  });
});
