/**
 * Fault injection for the sale protocol's crash tests: LEADFLOW_CRASH_AT names a step of a sale at
 * which the process kills itself (`<point>` or `<point>:kill`) or stops itself until it is sent
 * SIGCONT (`<point>:stop`, so that a test can take the database away at exactly that step). It fires
 * once, for the first lead that reaches the step. Unset, every call is a no-op.
 */
export const CRASH_POINTS = ['before-intent', 'after-intent', 'after-answer', 'in-record', 'after-record'] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

const ACTIONS = { kill: 'SIGKILL', stop: 'SIGSTOP' } as const;

export interface CrashSetting {
  point: CrashPoint;
  action: keyof typeof ACTIONS;
}

/** The setting a LEADFLOW_CRASH_AT value names; throws a message naming the choices for a bad one. */
export function parseCrashSetting(raw: string): CrashSetting {
  const [point, action = 'kill', extra] = raw.split(':');
  if (extra !== undefined || !CRASH_POINTS.includes(point as CrashPoint) || !Object.hasOwn(ACTIONS, action)) {
    throw new Error(`must be <point>[:kill|:stop] with a point among ${CRASH_POINTS.join(', ')}`);
  }
  return { point: point as CrashPoint, action: action as CrashSetting['action'] };
}

let armed: CrashSetting | undefined;

export function armCrashPoint(setting: CrashSetting | undefined): void {
  armed = setting;
}

export function crashPoint(point: CrashPoint): void {
  if (armed?.point !== point) return;
  const { action } = armed;
  armed = undefined;
  process.kill(process.pid, ACTIONS[action]);
}
