import type { Logger } from '@leadflow/service-kit/logger';
import type { PiiLifecycle } from './pii-lifecycle.js';

const MINUTE_MS = 60_000;

export interface PurgeScheduleOptions {
  retentionDays: number;
  logger: Logger;
  /** After start: late enough not to compete with it, early enough that a restart loop still purges. */
  firstRunMs?: number;
  everyMs?: number;
}

export interface PurgeSchedule {
  /** No further runs; a run in progress stops after its current batch. */
  stop(): Promise<void>;
}

/**
 * Purges sensitive fields older than the retention period shortly after start
 * and then every hour. Runs never overlap within a process; across instances
 * the purge itself makes overlapping runs harmless. The timer is unref'd: it
 * never keeps a process alive on its own.
 */
export function schedulePurge(lifecycle: PiiLifecycle, options: PurgeScheduleOptions): PurgeSchedule {
  const { retentionDays, logger, firstRunMs = MINUTE_MS, everyMs = 60 * MINUTE_MS } = options;
  const stopping = new AbortController();
  let running: Promise<void> = Promise.resolve();

  const run = () => {
    running = lifecycle
      .purge(retentionDays, stopping.signal)
      .then(
        (purged) => {
          if (purged > 0) logger.info({ purged, retentionDays }, 'purged sensitive lead fields past retention');
        },
        (error: unknown) => {
          // Name and code only: driver errors can quote SQL parameters.
          const { name, code } = error as { name?: string; code?: unknown };
          logger.warn({ error: { name, code } }, 'sensitive data purge failed: retrying at the next run');
        },
      )
      .finally(() => {
        if (!stopping.signal.aborted) timer = setTimeout(run, everyMs).unref();
      });
  };
  let timer = setTimeout(run, firstRunMs).unref();

  return {
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await running;
    },
  };
}
