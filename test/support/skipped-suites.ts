/** Suites skipped because a server they need is missing, reported once at the end of the run. */
const skipped = new Map<string, string>();

export function recordSkippedSuite(suite: string, reason: string): void {
  skipped.set(suite, reason);
}

export function skippedSuites(): ReadonlyMap<string, string> {
  return skipped;
}
