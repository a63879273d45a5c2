import { sampled } from '../support/metrics-text.js';
import type { MeasuredWindow } from './load.js';

/** How often the distribution service's commits waited for the disk, and the fsyncs that served them. */
export interface DiskWaitCounts {
  waits: number;
  syncs: number;
}

/** The counters of one /metrics text; undefined where the store has none (MySQL). */
export function diskWaitCounts(metricsText: string): DiskWaitCounts | undefined {
  const waits = sampled(metricsText, 'leadflow_store_disk_waits_total');
  const syncs = sampled(metricsText, 'leadflow_store_syncs_total');
  return waits === undefined || syncs === undefined ? undefined : { waits, syncs };
}

/** The disk waits of the distribution service between start() and stop(), read from its metrics. */
export class DiskWaitMeter implements MeasuredWindow {
  private startedAt: DiskWaitCounts | undefined;
  /** undefined until stopped, and on a store that counts none. */
  counted: DiskWaitCounts | undefined;

  constructor(private readonly metricsUrl: string) {}

  async start(): Promise<void> {
    this.startedAt = await this.read();
  }

  async stop(): Promise<void> {
    const now = await this.read();
    if (!now || !this.startedAt) return;
    this.counted = { waits: now.waits - this.startedAt.waits, syncs: now.syncs - this.startedAt.syncs };
  }

  private async read(): Promise<DiskWaitCounts | undefined> {
    return diskWaitCounts(await (await fetch(this.metricsUrl)).text());
  }
}

/** Several windows opened and closed together. */
export function windows(...all: MeasuredWindow[]): MeasuredWindow {
  return {
    start: async () => {
      for (const window of all) await window.start();
    },
    stop: async () => {
      for (const window of all) await window.stop();
    },
  };
}

/** Disk waits per lead answered and per post made in the window; undefined where none are counted. */
export interface DiskWaitFigures {
  waitsPerLead: number;
  syncsPerLead: number;
  waitsPerPost: number | undefined;
}

export function diskWaitFigures(
  counted: DiskWaitCounts | undefined,
  leads: number,
  posts: number,
): DiskWaitFigures | undefined {
  if (!counted || leads === 0) return undefined;
  const ratio = (part: number, whole: number) => Math.round((part / whole) * 100) / 100;
  return {
    waitsPerLead: ratio(counted.waits, leads),
    syncsPerLead: ratio(counted.syncs, leads),
    waitsPerPost: posts === 0 ? undefined : ratio(counted.waits, posts),
  };
}
