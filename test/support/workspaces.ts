// The repository's npm workspaces, as package.json declares them: the facts the layout, deploy and
// boundary tests judge the tree by.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from test/support/ (or from its compiled copy under dist/). */
export const REPOSITORY_ROOT = (() => {
  const here = fileURLToPath(new URL('../../', import.meta.url));
  return path.basename(here) === 'dist' ? path.dirname(here) : here;
})();

/**
 * The workspace packages' directories, repository-relative (`gateway`, `services/distribution`, ...):
 * each entry of package.json's workspaces, `dir/*` standing for every directory under it with a package.json.
 */
export function workspacePackages(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(REPOSITORY_ROOT, 'package.json'), 'utf8'));
  return (manifest.workspaces as string[]).flatMap((entry) => {
    if (!entry.endsWith('/*')) return [entry];
    const parent = entry.slice(0, -2);
    return readdirSync(path.join(REPOSITORY_ROOT, parent), { withFileTypes: true })
      .filter(
        (child) => child.isDirectory() && existsSync(path.join(REPOSITORY_ROOT, parent, child.name, 'package.json')),
      )
      .map((child) => `${parent}/${child.name}`);
  });
}

/** The workspace package a repository-relative path lies in, and the path inside it; undefined outside them. */
export function packageOf(repoPath: string): { packageDir: string; inPackage: string } | undefined {
  const packageDir = workspacePackages().find((dir) => repoPath.startsWith(`${dir}/`));
  return packageDir ? { packageDir, inPackage: repoPath.slice(packageDir.length + 1) } : undefined;
}
