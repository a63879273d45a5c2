import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { importSpecifiers } from './support/import-specifiers.js';
import { REPOSITORY_ROOT as ROOT, workspacePackages } from './support/workspaces.js';

/*
 * test/ mirrors the code: the test of gateway/src/rate-limit/rolling-window.ts is
 * test/gateway/rate-limit/rolling-window(.unit).test.ts, so a maintainer finds it from the module's path.
 * Suites that cross processes or the whole stack, and the shared helpers, have folders of their own.
 */
const OWN_FOLDERS = ['bench', 'cluster', 'deploy', 'docs', 'e2e', 'tls', 'support', 'fixtures'];

/** Tests of a whole workspace rather than of one module in it. */
const WHOLE_WORKSPACE_TESTS = new Set([
  // The import direction between the distribution service's folders.
  'test/services/distribution/rooms.unit.test.ts',
  // The generated code and descriptor sets against the .proto files.
  'test/proto/generated-code.test.ts',
]);

/** Where a workspace's modules are, from its tsconfig's rootDir: `services/core/src`, `proto`. */
function moduleRoot(workspace: string): string {
  const tsconfig = JSON.parse(readFileSync(path.join(ROOT, workspace, 'tsconfig.json'), 'utf8'));
  return path.join(workspace, tsconfig.compilerOptions.rootDir);
}

/**
 * The module a test mirrors, repository-relative, or undefined. `.unit` and one qualifier after the
 * module's name (`parse-buyers.property`, `parse-buyers.errors`) do not change the module.
 */
function mirroredModule(testPath: string): string | undefined {
  const inTest = testPath.slice('test/'.length);
  const workspace = workspacePackages().find((dir) => inTest.startsWith(`${dir}/`));
  if (workspace === undefined) return undefined;
  const name = inTest.slice(workspace.length + 1).replace(/(\.unit)?\.test\.ts$/, '');
  return [name, name.replace(/\.[^./]+$/, '')]
    .map((candidate) => path.join(moduleRoot(workspace), `${candidate}.ts`))
    .find((module) => existsSync(path.join(ROOT, module)));
}

function filesUnderTest(): string[] {
  return readdirSync(path.join(ROOT, 'test'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
}

/** A test outside the folders of its own that mirrors no module, as "test: why". */
function misplaced(testPath: string): string | undefined {
  const [, first, ...rest] = testPath.split('/');
  if (rest.length === 0) return undefined; // test/*.test.ts: checks of the whole repository
  if (OWN_FOLDERS.includes(first!) || WHOLE_WORKSPACE_TESTS.has(testPath)) return undefined;
  return mirroredModule(testPath) === undefined ? `${testPath}: no module at its mirrored path` : undefined;
}

/** The imports of a file under test/ that climb into a workspace's sources, as "file -> specifier". */
function relativeSourceImports(file: string): string[] {
  const workspaces = workspacePackages();
  return importSpecifiers(path.join(ROOT, file))
    .filter((specifier) => specifier.startsWith('.'))
    .filter((specifier) => {
      const target = path
        .relative(ROOT, path.resolve(ROOT, path.dirname(file), specifier))
        .split(path.sep)
        .join('/');
      return workspaces.some((dir) => target.startsWith(`${dir}/`));
    })
    .map((specifier) => `${file} -> ${specifier}`);
}

describe('the test tree mirrors the code', () => {
  it('reads the tests and judges names as the layout says (a check that sees nothing passes for nothing)', () => {
    expect(filesUnderTest().filter((file) => file.endsWith('.test.ts')).length).to.be.greaterThan(100);
    expect(mirroredModule('test/services/distribution/selling/post-order.unit.test.ts')).to.equal(
      'services/distribution/src/selling/post-order.ts',
    );
    expect(mirroredModule('test/services/distribution/buyers/definition/parse-buyers.property.unit.test.ts')).to.equal(
      'services/distribution/src/buyers/definition/parse-buyers.ts',
    );
    expect(mirroredModule('test/gateway/rate-limit/rolling-window-store.unit.test.ts')).to.equal(
      'gateway/src/rate-limit/rolling-window-store.ts',
    );
    expect(mirroredModule('test/proto/leadflow/admin/v1/leads.test.ts')).to.equal('proto/leadflow/admin/v1/leads.ts');
    expect(misplaced('test/selling/ledger.test.ts')).to.be.a('string');
    expect(misplaced('test/services/distribution/buyers/ledger.test.ts')).to.be.a('string');
    expect(misplaced('test/e2e/processes.test.ts')).to.equal(undefined);
    expect(relativeSourceImports('test/support/distribution-process.ts')).to.deep.equal([]);
  });

  it('puts every test at the path of the module it tests, or in a folder of its own', () => {
    const found = filesUnderTest()
      .filter((file) => file.endsWith('.test.ts'))
      .map(misplaced)
      .filter((why) => why !== undefined);
    expect(found).to.deep.equal([]);
  });

  it('imports the code under test by package name, never by a relative path into a workspace', () => {
    expect(filesUnderTest().flatMap(relativeSourceImports)).to.deep.equal([]);
  });

  it('names as whole-workspace tests only files that exist', () => {
    for (const file of WHOLE_WORKSPACE_TESTS) expect(existsSync(path.join(ROOT, file)), file).to.equal(true);
  });
});

/**
 * The repository's top level, as the design card says it: "package.json, tsconfig.json, proto/, services/,
 * gateway/, deploy/, test/, README.md (plus docs/, LICENSE, .ci/, the lockfile and tool configs)".
 */
const TOP_LEVEL = {
  named: ['package.json', 'tsconfig.json', 'proto', 'services', 'gateway', 'deploy', 'test', 'README.md'],
  plus: ['docs', 'LICENSE', '.ci'],
  lockfile: ['package-lock.json'],
  toolConfigs: [
    'tsconfig.base.json',
    'biome.json',
    'buf.yaml',
    'buf.gen.yaml',
    '.mocharc.json',
    '.mocharc.unit.json',
    '.editorconfig',
    '.gitignore',
    '.git-blame-ignore-revs',
  ],
};

/** The first path segment of every file git tracks: what a clone of the repository has at its top. */
function trackedTopLevel(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  return [...new Set(files.map((file) => file.split('/')[0]!))].sort();
}

describe('the top level is the one the design card names', () => {
  it('tracks nothing at the top but the entries of the card', () => {
    const allowed = new Set(Object.values(TOP_LEVEL).flat());
    const tracked = trackedTopLevel();
    expect(tracked, 'what git tracks at the top').to.include.members([...TOP_LEVEL.named, ...TOP_LEVEL.plus]);
    expect(tracked.filter((entry) => !allowed.has(entry))).to.deep.equal([]);
  });
});
