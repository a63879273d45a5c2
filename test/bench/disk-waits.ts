import type { Sample } from '../support/metrics-text.js';

/** How often the distribution service's commits waited for the disk, and the fsyncs that served them. */
export interface DiskWaitCounts {
  waits: number;
  syncs: number;
}

/** The counters of one reading of the metrics; undefined where the store has none (MySQL). */
function diskWaitCounts(samples: readonly Sample[]): DiskWaitCounts | undefined {
  const value = (name: string) => samples.find((sample) => sample.name === name)?.value;
  const waits = value('leadflow_store_disk_waits_total');
  const syncs = value('leadflow_store_syncs_total');
  return waits === undefined || syncs === undefined ? undefined : { waits, syncs };
}

/** The disk waits counted between two readings of the distribution service's metrics. */
export function diskWaitsBetween(before: readonly Sample[], after: readonly Sample[]): DiskWaitCounts | undefined {
  const [earlier, later] = [diskWaitCounts(before), diskWaitCounts(after)];
  if (!earlier || !later) return undefined;
  return { waits: later.waits - earlier.waits, syncs: later.syncs - earlier.syncs };
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
