import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `ready` every `intervalMs` until it is true; a throw counts as not yet (a server still
 * starting refuses connections). Fails naming `what` after `timeoutMs`.
 */
export async function waitUntil(
  what: string,
  ready: () => Promise<boolean> | boolean,
  timeoutMs = 30_000,
  intervalMs = 100,
): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    if (
      await Promise.resolve()
        .then(ready)
        .catch(() => false)
    )
      return;
    if (Date.now() > giveUpAt) throw new Error(`${what}: not ready within ${timeoutMs} ms`);
    await sleep(intervalMs);
  }
}
