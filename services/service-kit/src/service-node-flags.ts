/**
 * V8 heap sizing for the gateway and the distribution service, wherever leadflow starts them (`npm start`,
 * the container images, the Kubernetes manifests, the bench). Both processes keep about 20-35 MB live,
 * but with V8's defaults on a machine with a few GB of memory their heaps grow far past that under load:
 * an old generation let to grow up to 4x what survived its last full collection (the factor V8 gives
 * heaps whose limit is 2 GB or more), and a 16 MB semi-space (32 MB of young generation, resident once
 * used). A lower old-generation limit brings that factor down (about 1.6 at 1024 MB, 1.4 at 512 MB), and
 * an 8 MB semi-space halves the young generation. The gateway pays nothing measurable for it; the
 * distribution service about 5% more CPU per buyer call in fan-out (the objects of pings in flight outlive
 * a smaller young generation and are collected as old), for a peak RSS under 150 MB in every bench
 * scenario. Measured in docs/operations.md ("Memory").
 *
 * Neither limit is set tight (512 MB is about 15 x what either holds): a process out of heap stops, and
 * every lead in flight with it.
 */
export const SERVICE_NODE_FLAGS = {
  gateway: ['--max-semi-space-size=8', '--max-old-space-size=512'],
  distribution: ['--max-semi-space-size=8', '--max-old-space-size=512'],
} as const satisfies Record<string, readonly string[]>;

export type LeadflowService = keyof typeof SERVICE_NODE_FLAGS;

/** `--max_old_space_size=1` -> `--max-old-space-size`: the name node and V8 know a flag by. */
function flagName(arg: string): string {
  return arg.split('=')[0]!.replaceAll('_', '-');
}

/**
 * The service's SERVICE_NODE_FLAGS less those the operator already sets (in `given`, e.g. the launcher's
 * own process.execArgv, or in NODE_OPTIONS), so that their choice wins: node lets its command line
 * override NODE_OPTIONS, so a default on the command line would override theirs.
 */
export function serviceNodeFlags(service: LeadflowService, given: readonly string[], nodeOptions = ''): string[] {
  const set = new Set([...given, ...nodeOptions.split(/\s+/)].filter((arg) => arg.startsWith('--')).map(flagName));
  return SERVICE_NODE_FLAGS[service].filter((flag) => !set.has(flagName(flag)));
}
