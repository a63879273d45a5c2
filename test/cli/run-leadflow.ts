import { runCli } from '../../services/cli/run-cli.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process, seeing only the given environment. */
export async function runLeadflow(argv: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const run = { stdout: '', stderr: '' };
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (run.stdout += text) },
    stderr: { write: (text: string) => (run.stderr += text) },
    env,
  });
  return { code, ...run };
}
