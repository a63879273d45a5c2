// docs/grpc-api.md's first calls (grpcurl, Python, Node), run as written against `npm start`, from a
// directory laid out as the repository root: `.leadflow/` is the started service's data directory.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadDescribedFiles } from '@leadflow/distribution/src/observability/descriptor-sets';
import { expect } from 'chai';
import { markedBlock } from '../support/doc-blocks.js';
import { startLauncher } from '../support/launcher.js';
import { freePorts } from '../support/ports.js';
import { pythonWithGrpcOrSkip, runPython } from '../support/python-grpc.js';
import { type RunningProcess, stopProcess } from '../support/source-process.js';
import { REPOSITORY_ROOT } from '../support/workspaces.js';

const PAGE = 'docs/grpc-api.md';
const STAND_IN = path.join(REPOSITORY_ROOT, 'test/docs/support/grpcurl-stand-in.ts');
/** What the examples read from the repository root besides `.leadflow/`. */
const LINKED = ['proto', 'test', 'node_modules'];

const described = loadDescribedFiles();
const SERVICES = new Map(
  described.flatMap(({ proto }) =>
    proto.service.map((service) => [`${proto.package}.${service.name}`, service.method.map((method) => method.name)]),
  ),
);

interface GrpcurlRun {
  args: string[];
  stdout: string;
  stderr: string;
  code: number;
}

// biome-ignore lint/suspicious/noExplicitAny: an answer printed as JSON, read field by field
type Printed = any;

function expectDemoPublisherListed(answer: Printed): void {
  expect(answer.publishers.map((publisher: { name: string }) => publisher.name)).to.include('Demo publisher');
}

/** A lead sold or rejected (the demo lenders decide), not an earlier answer replayed. */
function expectNewLeadAnswered(answer: Printed): void {
  expect((answer.sold ?? answer.rejected)?.leadId, JSON.stringify(answer)).to.match(/^lead_/);
  expect(answer.replayed, 'replayed').to.equal(undefined);
}

/** What each client prints: the publishers, then the lead's answer, one JSON document a line. */
function expectPublishersThenLead(stdout: string): void {
  const lines = stdout.trim().split('\n');
  expect(lines, stdout).to.have.length(2);
  expectDemoPublisherListed(JSON.parse(lines[0]!));
  expectNewLeadAnswered(JSON.parse(lines[1]!));
}

describe('docs: the first gRPC calls of docs/grpc-api.md, as written, against npm start', function () {
  this.timeout(180_000);
  let workDir: string;
  let launcher: RunningProcess | undefined;
  let env: Record<string, string>;

  before(async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'leadflow-grpc-docs-'));
    for (const name of LINKED) await symlink(path.join(REPOSITORY_ROOT, name), path.join(workDir, name));
    const [http, grpc, simulator] = await freePorts(3);
    launcher = await startLauncher({
      LEADFLOW_DATA_DIR: path.join(workDir, '.leadflow'),
      LEADFLOW_HTTP_PORT: String(http),
      LEADFLOW_GRPC_PORT: String(grpc),
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_SIMULATOR_PORT: String(simulator),
    });
    env = { ...process.env, LEADFLOW_GRPC_PORT: String(grpc) } as Record<string, string>;
  });
  after(async () => {
    if (launcher) await stopProcess(launcher);
    await rm(workDir, { recursive: true, force: true });
  });

  it('names in every grpcurl line of the page only services and methods the descriptors declare', () => {
    const lines = readFileSync(path.join(REPOSITORY_ROOT, PAGE), 'utf8').replace(/\\\n/g, ' ').split('\n');
    const symbols = lines
      .filter((line) => /^\s*grpcurl /.test(line))
      .flatMap((line) => line.match(/\b[a-z][a-z0-9]*(?:\.[a-z0-9]+)+\.[A-Z]\w*(?:\/[A-Z]\w*)?/g) ?? []);
    expect(symbols).to.include.members([
      'leadflow.admin.v1.AdminService',
      'leadflow.admin.v1.AdminService/ListPublishers',
      'leadflow.distribution.v1.DistributionService/SubmitLead',
    ]);
    for (const symbol of symbols) {
      const [service, method] = symbol.split('/') as [string, string | undefined];
      expect(SERVICES.has(service), `${symbol}: a service of the descriptors`).to.equal(true);
      if (method !== undefined) expect(SERVICES.get(service), symbol).to.include(method);
    }
  });

  it('runs the grpcurl lines, each answered through server reflection alone', async () => {
    const script = markedBlock(PAGE, 'grpcurl.sh');
    const bin = path.join(workDir, 'bin');
    await mkdir(bin, { recursive: true });
    await writeFile(
      path.join(bin, 'grpcurl'),
      `#!/bin/sh\nexec "${process.execPath}" --conditions=source --import tsx "${STAND_IN}" "$@"\n`,
    );
    await chmod(path.join(bin, 'grpcurl'), 0o755);
    const log = path.join(workDir, 'grpcurl.log');
    await promisify(execFile)('bash', ['-e', '-c', script], {
      cwd: workDir,
      env: { ...env, PATH: `${bin}:${process.env.PATH}`, GRPCURL_STAND_IN_LOG: log },
    });

    const runs = (await readFile(log, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as GrpcurlRun);
    const [list, describe, listPublishers, submitLead, ...rest] = runs;
    expect(rest, 'one run per grpcurl line').to.deep.equal([]);
    for (const run of runs) expect(run.code, `${run.args.join(' ')}: ${run.stderr}`).to.equal(0);

    expect(list!.stdout.trim().split('\n')).to.deep.equal([...SERVICES.keys()].sort());
    for (const method of SERVICES.get('leadflow.admin.v1.AdminService')!)
      expect(describe!.stdout).to.include(`rpc ${method} (`);
    expectDemoPublisherListed(JSON.parse(listPublishers!.stdout));
    expectNewLeadAnswered(JSON.parse(submitLead!.stdout));
  });

  describe('the Python client (Debian python3-grpcio, python3-protobuf)', () => {
    let python: string;
    before(function () {
      python = pythonWithGrpcOrSkip(this);
    });

    it('loads the committed descriptor set, lists the publishers and sells a lead', async () => {
      const file = path.join(workDir, 'leadflow_client.py');
      await writeFile(file, markedBlock(PAGE, 'leadflow_client.py'));
      expectPublishersThenLead(await runPython(python, [file], { cwd: workDir, env }));
    });
  });

  it('runs the Node client, loading the .proto files', async () => {
    const file = path.join(workDir, 'leadflow-client.mjs');
    await writeFile(file, markedBlock(PAGE, 'leadflow-client.mjs'));
    const { stdout } = await promisify(execFile)(process.execPath, [file], { cwd: workDir, env });
    expectPublishersThenLead(stdout);
  });
});
