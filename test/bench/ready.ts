import { setTimeout as delay } from 'node:timers/promises';
import { type NodeProcess, ScenarioFailure } from './node-process.js';

const READY_TIMEOUT_MS = 60_000;
const POLL_MS = 200;

/** Polls url until it answers 200; fails early when one of the processes behind it exits. */
export async function waitUntilReady(url: string, processes: NodeProcess[]): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const exited = processes.find((p) => !p.running);
    if (exited) throw new ScenarioFailure(`${exited.name} exited before ${url} answered 200`, processes);
    if (await answers200(url)) return;
    if (Date.now() > deadline) {
      throw new ScenarioFailure(`${url} did not answer 200 within ${READY_TIMEOUT_MS / 1000} s`, processes);
    }
    await delay(POLL_MS);
  }
}

async function answers200(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/** The first line process writes to stdout; fails when it exits without one or takes too long. */
export async function firstLineOf(process: NodeProcess, processes: NodeProcess[]): Promise<string> {
  const timeout = new AbortController();
  const timedOut = Symbol('timed out');
  const line = await Promise.race([
    process.firstLine,
    delay(READY_TIMEOUT_MS, timedOut, { signal: timeout.signal }).catch(() => undefined),
  ]).finally(() => timeout.abort());
  if (line === timedOut) {
    throw new ScenarioFailure(`${process.name} wrote nothing to stdout within ${READY_TIMEOUT_MS / 1000} s`, processes);
  }
  if (!line) throw new ScenarioFailure(`${process.name} exited before writing its first line`, processes);
  return line;
}
