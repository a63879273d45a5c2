import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { expect } from 'chai';
import { importSpecifiers as specifiers } from './support/import-specifiers.js';
import { REPOSITORY_ROOT as ROOT, workspacePackages } from './support/workspaces.js';

interface PackageFile {
  name: string;
  exports: Record<string, unknown>;
  dependencies?: Record<string, string>;
}

/** Every workspace package by its directory's name (`distribution`, `gateway`): where it is, its package.json. */
const workspaceDirs = new Map(workspacePackages().map((dir) => [path.basename(dir), path.join(ROOT, dir)]));
const packages = new Map<string, PackageFile>(
  [...workspaceDirs].map(([dir, at]) => [dir, JSON.parse(readFileSync(path.join(at, 'package.json'), 'utf8'))]),
);
const directoryOf = new Map([...packages].map(([dir, manifest]) => [manifest.name, dir]));

/** Where a package's sources are: its tsconfig's rootDir (src/, or the package itself for the generated code). */
function sourceRoot(dir: string): string {
  const at = workspaceDirs.get(dir)!;
  const tsconfig = JSON.parse(readFileSync(path.join(at, 'tsconfig.json'), 'utf8'));
  return path.join(at, tsconfig.compilerOptions.rootDir);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(sourceRoot(dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((file) => !/[/\\](dist|node_modules)[/\\]/.test(path.relative(ROOT, file)));
}

/** `@leadflow/core/lead-fields` -> ['@leadflow/core', './lead-fields']; `fastify` -> ['fastify', '.']. */
function splitSpecifier(specifier: string): [string, string] {
  const parts = specifier.split('/');
  const length = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(length).join('/');
  return [parts.slice(0, length).join('/'), rest === '' ? '.' : `./${rest}`];
}

/**
 * Whether the package's `exports` offer the subpath to other packages, exactly or through a `./prefix*`
 * pattern. An export with a `source` target and no `default` (`./src/*`) is for the tests, which run from
 * sources: compiled code could not load it, so it offers nothing to other packages.
 */
function exported(manifest: PackageFile, subpath: string): boolean {
  return Object.entries(manifest.exports)
    .filter(([, target]) => typeof target === 'string' || (target as Record<string, unknown>).default !== undefined)
    .some(([key]) =>
      key.endsWith('*') ? subpath.startsWith(key.slice(0, -1)) && subpath.length > key.length - 1 : key === subpath,
    );
}

/** What a package's sources import that its package.json does not allow, as "file -> specifier: why". */
function violations(dir: string): string[] {
  const manifest = packages.get(dir)!;
  const declared = manifest.dependencies ?? {};
  const source = sourceRoot(dir);
  const found: string[] = [];
  for (const file of sourceFiles(dir)) {
    const where = path.relative(ROOT, file);
    for (const specifier of specifiers(file)) {
      if (specifier.startsWith('.')) {
        const target = path.resolve(path.dirname(file), specifier);
        if (!target.startsWith(`${source}${path.sep}`))
          found.push(`${where} -> ${specifier}: leaves ${path.relative(ROOT, source)}`);
        continue;
      }
      if (specifier.startsWith('node:') || builtinModules.includes(specifier)) continue;
      const [name, subpath] = splitSpecifier(specifier);
      if (!(name in declared)) found.push(`${where} -> ${specifier}: ${name} is not in its dependencies`);
      const workspace = directoryOf.get(name);
      if (workspace !== undefined && !exported(packages.get(workspace)!, subpath)) {
        found.push(`${where} -> ${specifier}: not exported by ${name}`);
      }
    }
  }
  return found;
}

/** The workspace packages a package depends on, directly or through others. */
function workspaceClosure(dir: string, seen = new Set<string>()): Set<string> {
  for (const name of Object.keys(packages.get(dir)?.dependencies ?? {})) {
    const workspace = directoryOf.get(name);
    if (workspace === undefined || seen.has(workspace)) continue;
    seen.add(workspace);
    workspaceClosure(workspace, seen);
  }
  return seen;
}

describe('packages use each other only through what they export and declare', () => {
  it('reads every package and the imports it judges (a check that sees nothing passes for nothing)', () => {
    expect([...packages.keys()]).to.include.members(['core', 'distribution', 'gateway', 'cli', 'simulator']);
    expect(specifiers(path.join(sourceRoot('launcher'), 'main.ts'))).to.include.members([
      '@leadflow/distribution',
      '@leadflow/simulator',
    ]);
    expect(exported(packages.get('distribution')!, './buyers/ledger')).to.equal(false);
    expect(exported(packages.get('distribution')!, './src/buyers/ledger')).to.equal(false);
    expect(exported(packages.get('core')!, './lead-fields')).to.equal(true);
  });

  for (const dir of packages.keys()) {
    it(`${dir}: no relative import leaves its src/, every other package imported is declared and exported`, () => {
      expect(violations(dir)).to.deep.equal([]);
    });
  }

  it('keeps the simulator free of the engine: it shares only the core with it', () => {
    expect([...workspaceClosure('simulator')].sort()).to.deep.equal(['core', 'proto']);
  });
});
