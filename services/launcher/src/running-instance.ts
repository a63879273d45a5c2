import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type HeldLock, holdLockFile, type LockHolder } from '@leadflow/distribution';

/** Held by the `npm start` running on a data directory, for as long as it runs. */
export const INSTANCE_LOCK_FILE = 'npm-start.lock';
/** Where that `npm start` serves, written by the lock's holder for a second start to name. */
export const INSTANCE_FILE = 'npm-start.json';

/** The addresses an `npm start` serves on. */
export interface InstanceAddresses {
  /** The gateway's base URL, as the banner gives it. */
  gateway: string;
  httpPort: number;
  grpcPort: number;
  metricsPort: number;
  /** The demo market's simulator, on the embedded default only. */
  simulatorPort?: number | undefined;
}

/** A second `npm start` on a data directory another one runs on. */
export class AlreadyRunning extends Error {}

function readAddresses(dataDir: string): InstanceAddresses | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dataDir, INSTANCE_FILE), 'utf8')) as InstanceAddresses;
  } catch {
    return undefined; // Not written yet (it is starting) or removed by hand: the holder's pid still names it.
  }
}

const shellWord = (word: string): string => (/^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
const nextPort = (port: number): number => (port === 0 ? 0 : port + 1);

/** One line: which instance runs on `dataDir`, and the command that runs another beside it. */
export function alreadyRunningMessage(
  dataDir: string,
  holder: LockHolder | undefined,
  running: InstanceAddresses | undefined,
): string {
  const who = [holder && `npm start pid ${holder.pid}`, running && `gateway ${running.gateway}`].filter(Boolean);
  const where = who.length > 0 ? ` (${who.join(', ')})` : '';
  const settings = running
    ? [
        `LEADFLOW_DATA_DIR=${shellWord(`${dataDir}-2`)}`,
        `LEADFLOW_HTTP_PORT=${nextPort(running.httpPort)}`,
        `LEADFLOW_GRPC_PORT=${nextPort(running.grpcPort)}`,
        `LEADFLOW_METRICS_PORT=${nextPort(running.metricsPort)}`,
        ...(running.simulatorPort === undefined ? [] : [`LEADFLOW_SIMULATOR_PORT=${nextPort(running.simulatorPort)}`]),
      ]
    : undefined;
  const beside = settings
    ? `give it its own data directory and ports: ${settings.join(' ')} npm start`
    : 'give it its own LEADFLOW_DATA_DIR and free LEADFLOW_HTTP_PORT, LEADFLOW_GRPC_PORT, LEADFLOW_METRICS_PORT and LEADFLOW_SIMULATOR_PORT';
  return `leadflow is already running in ${dataDir}${where}; to run another beside it, ${beside}`;
}

/**
 * Makes this process the `npm start` of `dataDir`, and writes where it serves, or throws AlreadyRunning
 * naming the one that is. Held until released or this process ends (the kernel lets go of it however it
 * ends); keep the lock referenced, as a collected one is closed.
 */
export function claimDataDir(dataDir: string, addresses: InstanceAddresses): HeldLock {
  const lock = holdLockFile(
    path.join(dataDir, INSTANCE_LOCK_FILE),
    (holder) => new AlreadyRunning(alreadyRunningMessage(dataDir, holder, readAddresses(dataDir))),
  );
  const file = path.join(dataDir, INSTANCE_FILE);
  writeFileSync(`${file}.new`, `${JSON.stringify(addresses)}\n`, { mode: 0o600 });
  renameSync(`${file}.new`, file);
  return lock;
}
