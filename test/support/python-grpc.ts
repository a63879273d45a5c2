import { type ExecFileOptions, execFile, spawnSync } from 'node:child_process';
import { recordSkippedSuite } from './skipped-suites.js';

const REQUIRE_PYTHON_GRPC = process.env.LEADFLOW_REQUIRE_PYTHON_GRPC === '1';
/** LEADFLOW_TEST_PYTHON when set, else the first of Debian's python3 (python3-grpcio, python3-protobuf) and PATH's. */
const CANDIDATES = process.env.LEADFLOW_TEST_PYTHON
  ? [process.env.LEADFLOW_TEST_PYTHON]
  : ['/usr/bin/python3', 'python3'];

function hasGrpc(python: string): boolean {
  return spawnSync(python, ['-c', 'import grpc, google.protobuf.descriptor_pool'], { stdio: 'ignore' }).status === 0;
}

/**
 * For a suite's `before` hook: a python3 that imports grpc and protobuf, or the suite is skipped
 * and named at the end of the run, or fails when LEADFLOW_REQUIRE_PYTHON_GRPC=1 (CI) says it must run.
 */
export function pythonWithGrpcOrSkip(context: Mocha.Context): string {
  const found = CANDIDATES.find(hasGrpc);
  if (found) return found;
  const suite = context.test?.parent?.fullTitle() ?? 'python gRPC suite';
  const reason = `no python3 with grpc and protobuf among ${CANDIDATES.join(', ')} (Debian: apt-get install python3-grpcio python3-protobuf)`;
  if (REQUIRE_PYTHON_GRPC) throw new Error(`${suite}: ${reason} (LEADFLOW_REQUIRE_PYTHON_GRPC=1)`);
  recordSkippedSuite(suite, reason);
  context.skip();
}

/** Runs a Python script without blocking this process (which may be the server it talks to); its stdout. */
export function runPython(
  python: string,
  args: readonly string[],
  options: Pick<ExecFileOptions, 'cwd' | 'env'> = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(python, args, { ...options, maxBuffer: 16 * 1024 * 1024, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${python} ${args.join(' ')}: ${error.message}\n${stderr}`));
      else resolve(String(stdout));
    });
  });
}
