import { readFileSync } from 'node:fs';

/** USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_S = 100;

/** CPU time (user + system) a process has used so far, in ms, from its own counters in /proc/PID/stat. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis start at field 3.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const [utime, stime] = [Number(fields[14 - 3]), Number(fields[15 - 3])];
  return ((utime + stime) * 1000) / CLOCK_TICKS_PER_S;
}

/** Something whose CPU time can be read: a child process, or the bench's own. */
export interface CpuSource {
  name: string;
  cpuMs(): number;
}

/** The bench process itself, e.g. while it is the bare client of a floor. */
export const benchProcess: CpuSource = {
  name: 'bench',
  cpuMs: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
};

/** CPU time of each source between start() and stop(): the measured window of a scenario. */
export class CpuMeter {
  private readonly startedAt = new Map<string, number>();
  private readonly used: Record<string, number> = {};

  constructor(private readonly sources: readonly CpuSource[]) {}

  start(): void {
    for (const source of this.sources) this.startedAt.set(source.name, source.cpuMs());
  }

  stop(): void {
    for (const source of this.sources) {
      const started = this.startedAt.get(source.name);
      if (started !== undefined) this.used[source.name] = Math.round(source.cpuMs() - started);
    }
  }

  /** ms per source; empty when the window never closed. */
  result(): Record<string, number> {
    return { ...this.used };
  }
}
