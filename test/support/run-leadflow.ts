import { Readable } from 'node:stream';
import { runCli } from '@leadflow/cli/src/run-cli';
import { expect } from 'chai';
import type { TestDistribution } from './distribution.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process, seeing only the given environment, with `stdin` as its standard input. */
export async function runLeadflow(argv: string[], env: Record<string, string> = {}, stdin = ''): Promise<CliRun> {
  const run = { stdout: '', stderr: '' };
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (run.stdout += text) },
    stderr: { write: (text: string) => (run.stderr += text) },
    stdin: Readable.from([stdin]),
    env,
  });
  return { code, ...run };
}

/** The CLI pointed at a test distribution service with its token. */
export interface StackCli {
  /** Every run also checks that the admin token was printed nowhere. */
  leadflow(argv: string[], env?: Record<string, string>, stdin?: string): Promise<CliRun>;
  /** `leadflow ARGV --json`, expected to succeed, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: parsed JSON of any command, read field by field
  json(...argv: string[]): Promise<any>;
}

export function stackCli(stack: TestDistribution): StackCli {
  const leadflow = async (argv: string[], env?: Record<string, string>, stdin?: string) => {
    const run = await runLeadflow(
      argv,
      env ?? { LEADFLOW_ADMIN_ADDRESS: stack.address, LEADFLOW_ADMIN_TOKEN: stack.service.adminToken },
      stdin,
    );
    expect(run.stdout + run.stderr).not.to.include(stack.service.adminToken);
    return run;
  };
  return {
    leadflow,
    async json(...argv) {
      const run = await leadflow([...argv, '--json']);
      expect(run.stderr).to.equal('');
      expect(run.code).to.equal(0);
      return JSON.parse(run.stdout);
    },
  };
}
