import { type RunningProcess, startProcess, waitForProcess } from './source-process.js';
import { REPOSITORY_ROOT } from './workspaces.js';

/** The last line of `npm start`'s banner: everything is up. */
const READY_LINE = 'stop with Ctrl-C';

/**
 * `npm start` (the launcher and its three children) as real processes from the repository root, with
 * none of this process's LEADFLOW_ settings, resolved once its banner is printed.
 */
export async function startLauncher(env: Record<string, string>): Promise<RunningProcess> {
  const launcher = startProcess(
    'services/launcher/src/main.ts',
    { LEADFLOW_LOG_LEVEL: 'warn', ...env },
    {
      cwd: REPOSITORY_ROOT,
      inherits: (name) => !name.startsWith('LEADFLOW_') && name !== 'REDIS_URL' && name !== 'DATABASE_URL',
    },
  );
  await waitForProcess('npm start', launcher, () => launcher.output.join('').includes(READY_LINE), 60_000);
  return launcher;
}
