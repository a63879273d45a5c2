import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Each app's directory and the one module other apps may import (none: nothing of it may be imported). */
const APPS: Record<string, { entry: string | undefined; mayNotImport?: string[] }> = {
  gateway: { entry: undefined },
  'services/distribution': { entry: 'services/distribution/src/index.ts' },
  'services/cli': { entry: undefined },
  'services/simulator': { entry: 'services/simulator/index.ts', mayNotImport: ['services/distribution'] },
  'services/launcher': { entry: undefined },
};

function sourceFiles(directory: string): string[] {
  return readdirSync(path.join(ROOT, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The relative modules a file imports or re-exports, statically or dynamically, as repository paths. */
function importedModules(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^import\s+)'(\.{1,2}\/[^']+)'/gm)].map(
    (match) => match[1] as string,
  );
  return specifiers.map((specifier) =>
    path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), specifier)).replace(/\.js$/, '.ts'),
  );
}

function appOf(module: string): string | undefined {
  return Object.keys(APPS).find((app) => module === app || module.startsWith(`${app}/`));
}

/** Every import of one app's module by another app that the rules above forbid, as "file -> module". */
function crossAppImports(): string[] {
  const violations: string[] = [];
  for (const [app, rules] of Object.entries(APPS)) {
    for (const file of sourceFiles(app)) {
      for (const module of importedModules(file)) {
        const target = appOf(module);
        if (target === undefined || target === app) continue;
        const forbidden = rules.mayNotImport?.includes(target) || module !== APPS[target]?.entry;
        if (forbidden) violations.push(`${file} -> ${module}`);
      }
    }
  }
  return violations;
}

describe('apps use each other only through their public entries', () => {
  it('finds the imports it judges (a check that sees nothing passes for nothing)', () => {
    expect(importedModules('services/launcher/main.ts')).to.include.members([
      'services/distribution/src/index.ts',
      'services/simulator/index.ts',
    ]);
  });

  it('has no deep import across apps, and nothing of the engine in the simulator', () => {
    expect(crossAppImports()).to.deep.equal([]);
  });
});
