// Builds the descriptor sets that gRPC server reflection serves (npm run generate): the
// production image has no buf, so they are committed next to the generated code.
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESCRIPTOR_SET_DIRECTORY, DESCRIPTOR_SETS } from './descriptor-set-sources.js';

/** The repository root: the parent of proto/, from this file or from its compiled copy in proto/dist/. */
const REPOSITORY_ROOT = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return path.dirname(path.basename(here) === 'dist' ? path.dirname(here) : here);
})();

/** Runs the buf CLI of the devDependencies, from the repository root; its stdout. */
export function buf(args: readonly string[]): string {
  const bin = createRequire(import.meta.url).resolve('@bufbuild/buf/bin/buf');
  const result = spawnSync(process.execPath, [bin, ...args], { cwd: REPOSITORY_ROOT, encoding: 'utf8' });
  if (result.error) throw result.error;
  if (result.status !== 0) throw new Error(`buf ${args.join(' ')} failed: ${result.stderr.trim()}`);
  return result.stdout;
}

/** Builds every set of DESCRIPTOR_SETS under outRoot, at its path from the repository root. */
export function buildDescriptorSets(outRoot = REPOSITORY_ROOT): void {
  for (const { name, input, paths = [] } of DESCRIPTOR_SETS) {
    const output = path.join(outRoot, DESCRIPTOR_SET_DIRECTORY, name);
    mkdirSync(path.dirname(output), { recursive: true });
    buf([
      'build',
      input,
      ...paths.flatMap((only) => ['--path', only]),
      '--exclude-source-info',
      '--as-file-descriptor-set',
      '-o',
      output,
    ]);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildDescriptorSets();
