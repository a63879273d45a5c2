/**
 * V8 heap sizing for the gateway and the distribution service, wherever leadflow starts them (`npm start`,
 * the container images, the Kubernetes manifests, the bench). Both processes keep about 20-35 MB live,
 * but with V8's defaults on a machine with a few GB of memory their heaps grow far past that under load:
 * a 16 MB semi-space (32 MB of young generation, always resident once used) and an old generation let to
 * grow up to 4x what survived its last full collection (the factor V8 gives heaps whose limit is 2 GB or
 * more). An old-generation limit of 256 MB brings that factor down to at most 1.3, and an 8 MB
 * semi-space halves the young generation; measured in docs/operations.md ("Memory").
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--max-old-space-size=256'];

/** `--max_old_space_size=1` -> `--max-old-space-size`: the name node and V8 know a flag by. */
function flagName(arg: string): string {
  return arg.split('=')[0]!.replaceAll('_', '-');
}

/**
 * SERVICE_NODE_FLAGS less those the operator already sets (in `given`, e.g. the launcher's own
 * process.execArgv, or in NODE_OPTIONS), so that their choice wins: node lets its command line override
 * NODE_OPTIONS, so a default on the command line would override theirs.
 */
export function serviceNodeFlags(given: readonly string[], nodeOptions = ''): string[] {
  const set = new Set([...given, ...nodeOptions.split(/\s+/)].filter((arg) => arg.startsWith('--')).map(flagName));
  return SERVICE_NODE_FLAGS.filter((flag) => !set.has(flagName(flag)));
}
