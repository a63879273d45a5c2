import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { COMMANDS } from '@leadflow/cli/src/run-cli';
import { AdminServiceClient, AdminServiceService } from '@leadflow/proto/leadflow/admin/v1/admin';
import {
  DistributionServiceClient,
  DistributionServiceService,
} from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { expect } from 'chai';
import { workspacePackages } from '../support/workspaces.js';

/**
 * The docs say what exists: their links lead somewhere, the README's layout is the tree's, every
 * environment variable and `leadflow` command they name is one the code reads, every variable the code
 * reads is in the configuration page, and the gRPC page's table of services names every method.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

const PAGES = [
  'README.md',
  'deploy/README.md',
  ...workspacePackages().map((workspace) => `${workspace}/README.md`),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const headings = [
    ...read(file)
      .replace(/^```[\s\S]*?^```/gm, '')
      .matchAll(/^#{1,6} (.+)$/gm),
  ];
  return new Set(headings.map((match) => anchorOf(match[1]!)));
}

/** The source files the code is made of, outside the generated and vendored ones. */
function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir)).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(path.join(ROOT, file)).isDirectory())
      return name === 'node_modules' || name === 'generated' ? [] : sourceFiles(file);
    return file.endsWith('.ts') ? [file] : [];
  });
}

const CODE = [...['services', 'gateway', 'test'].flatMap(sourceFiles), '.ci/run'].map(read).join('\n');
/** A variable, or with `_*` after it a family of them (`LEADFLOW_ADMIN_TLS_*`). */
const VARIABLE = /\b((?:LEADFLOW|BENCH)_[A-Z0-9_]*[A-Z0-9])(_\*)?/g;

/** Every option of every command takes these (services/cli/src/run-cli.ts). */
const COMMON_FLAGS = ['json', 'address', 'tls-ca', 'tls-cert', 'tls-key', 'help'];

describe('docs: consistent with the code', () => {
  it('every relative link leads to a file, and every anchor to a heading of it', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      const text = read(page).replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? page : path.normalize(path.join(path.dirname(page), file));
        if (!existsSync(path.join(ROOT, resolved))) broken.push(`${page}: ${target} (no ${resolved})`);
        else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
          broken.push(`${page}: ${target} (no heading)`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it("the README's layout names the tree's top-level directories, and only paths that exist", () => {
    const layout =
      /## Architecture[\s\S]*?```\n[\s\S]*?```[\s\S]*?```\n([\s\S]*?)```/.exec(read('README.md'))?.[1] ?? '';
    const named = layout
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(/\s+/)[0]!);
    expect(named.length, 'paths in the layout').to.be.greaterThan(5);
    for (const entry of named) expect(existsSync(path.join(ROOT, entry)), `${entry} exists`).to.equal(true);
    const tracked = ['services', 'gateway', 'proto', 'test', 'deploy', 'docs'];
    for (const dir of tracked)
      expect(
        named.some((entry) => entry.startsWith(`${dir}/`)),
        `the layout shows ${dir}/`,
      ).to.equal(true);
    for (const dir of workspacePackages()) expect(named, `the layout shows ${dir}/`).to.include(`${dir}/`);
  });

  it('names only environment variables the code reads', () => {
    for (const page of PAGES) {
      for (const [, name, family] of read(page).matchAll(VARIABLE)) {
        const pattern = new RegExp(family ? `\\b${name}_` : `\\b${name}\\b`);
        expect(pattern.test(CODE), `${page} names ${name}${family ?? ''}, which no code reads`).to.equal(true);
      }
    }
  });

  it('documents in docs/configuration.md every LEADFLOW_ variable the services read', () => {
    const configuration = read('docs/configuration.md');
    const code = ['services', 'gateway'].flatMap(sourceFiles).map(read).join('\n');
    const readByCode = new Set([...code.matchAll(/\bLEADFLOW_[A-Z0-9_]*[A-Z0-9]\b/g)].map((match) => match[0]));
    const missing = [...readByCode].filter((name) => !configuration.includes(`\`${name}\``));
    expect(missing).to.deep.equal([]);
  });

  it("docs/grpc-api.md's table of services names every method of each service, and no other", () => {
    const page = read('docs/grpc-api.md');
    for (const [serviceName, service] of [
      [DistributionServiceClient.serviceName, DistributionServiceService],
      [AdminServiceClient.serviceName, AdminServiceService],
    ] as const) {
      const row = page.split('\n').find((line) => line.startsWith(`| \`${serviceName}\` |`)) ?? '';
      const methodsCell = row.split(' | ').at(-1) ?? '';
      const named = [...methodsCell.matchAll(/`([A-Z]\w+)`/g)].map((match) => match[1]);
      const methods = Object.values(service).map((method) => method.path.slice(method.path.lastIndexOf('/') + 1));
      expect(named, serviceName).to.have.members(methods);
    }
  });

  it('shows only leadflow commands and options that exist', () => {
    const wrong: string[] = [];
    for (const page of PAGES) {
      for (const [invocation] of read(page).matchAll(/\bleadflow (?:[a-z]+)(?: [a-z][\w-]*)?[^`#\n]*/g)) {
        const [, group, name] = /^leadflow ([a-z]+)(?: ([a-z][\w-]*))?/.exec(invocation)!;
        if (group === 'help' || !COMMANDS.some((command) => command.group === group)) {
          if (group !== 'help' && ['publisher', 'buyer', 'lead', 'pii', 'report', 'returns'].includes(group!))
            wrong.push(`${page}: ${invocation}`);
          continue;
        }
        const command = COMMANDS.find(
          (candidate) => candidate.group === group && candidate.name === (candidate.name === '' ? '' : name),
        );
        if (!command) {
          wrong.push(`${page}: ${invocation} (no such command)`);
          continue;
        }
        const flags = [...invocation.matchAll(/--([a-z][\w-]*)/g)].map((match) => match[1]!);
        for (const flag of flags)
          if (!(flag in command.options) && !COMMON_FLAGS.includes(flag))
            wrong.push(`${page}: ${invocation} (no --${flag})`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });
});
