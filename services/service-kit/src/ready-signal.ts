/** What a service process sends the process that started it, once it serves. */
export const READY_MESSAGE = { type: 'leadflow:ready' } as const;

/** Whether `message`, received from a child process, is its ready signal. */
export function isReadyMessage(message: unknown): boolean {
  return (message as { type?: unknown } | null)?.type === READY_MESSAGE.type;
}

/**
 * Tells the process that started this one over an IPC channel (as `npm start`
 * does) that this one now serves: only the child itself can say that, where
 * a port that answers may be another process's. Without a channel, nothing.
 * The channel is then let go of, so that it keeps nothing alive at shutdown.
 */
export function announceReady(): void {
  if (!process.send) return;
  process.send(READY_MESSAGE, undefined, {}, () => process.channel?.unref());
}
