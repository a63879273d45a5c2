import type { ChildHandle } from './processes.js';

/** Every `name: output tail` of the given processes, for a failing test's message. */
export function outputTails(handles: (ChildHandle | undefined)[], lines = 40): string {
  return handles
    .filter((handle): handle is ChildHandle => handle !== undefined)
    .map((handle) => `--- ${handle.name} (last ${lines} lines) ---\n${handle.tail(lines)}`)
    .join('\n');
}

/**
 * For `afterEach`: prints the processes' recent output when the test failed, so a
 * failure in CI says what the processes were doing.
 */
export function printOutputOnFailure(context: Mocha.Context, handles: () => (ChildHandle | undefined)[]): void {
  if (context.currentTest?.state !== 'failed') return;
  console.log(outputTails(handles()));
}

/** Log lines (pino JSON) whose `msg` contains `text`. */
export function logLinesWith(handle: ChildHandle, text: string): Record<string, unknown>[] {
  return handle.logLines().filter((line) => typeof line.msg === 'string' && line.msg.includes(text));
}

/** Gateway log lines about 5xx answers, as `code: detail` (never a body or a key). */
export function failureLines(handle: ChildHandle): string[] {
  return logLinesWith(handle, 'request failed').map(
    (line) => `${String(line.code)}: ${String(line.detail ?? JSON.stringify(line.err ?? line.error))}`,
  );
}
