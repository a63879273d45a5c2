// Readers for the files under deploy/ and for the facts about the code they must agree with:
// which environment variables the code reads, which compiled entry points exist, which HTTP
// routes and gRPC services are served, which data files the code opens at run time.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { packageOf, REPOSITORY_ROOT as ROOT, workspacePackages } from '../support/workspaces.js';

export { ROOT, workspacePackages };

/** A repository-relative path with forward slashes. */
export function rel(absolute: string): string {
  return path.relative(ROOT, absolute).split(path.sep).join('/');
}

export function abs(repoPath: string): string {
  return path.join(ROOT, ...repoPath.split('/'));
}

export function read(repoPath: string): string {
  return readFileSync(abs(repoPath), 'utf8');
}

export function exists(repoPath: string): boolean {
  return existsSync(abs(repoPath));
}

export function isDirectory(repoPath: string): boolean {
  return exists(repoPath) && statSync(abs(repoPath)).isDirectory();
}

/** Every file under a repository directory, repository-relative, skipping node_modules and dist. */
export function filesUnder(repoDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(abs(dir), { withFileTypes: true })) {
      const child = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(child);
      } else {
        out.push(child);
      }
    }
  };
  walk(repoDir);
  return out.sort();
}

/** Every file of an installed package (its own nested node_modules included), repository-relative. */
export function filesUnderPackage(repoDir: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(abs(dir), { withFileTypes: true })) {
      const child = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else out.push(child);
    }
  };
  walk(repoDir);
  return out;
}

// ---- YAML -------------------------------------------------------------------------------------

// biome-ignore lint/suspicious/noExplicitAny: manifests of any shape, read key by key
export type Yaml = any;

export interface YamlDocument {
  file: string;
  index: number;
  value: Yaml;
}

/** Every document of a (multi-document) YAML file; a syntax error throws with the file's name. */
export function yamlDocuments(repoPath: string): YamlDocument[] {
  const documents = parseAllDocuments(read(repoPath), { merge: true, prettyErrors: true });
  const list = Array.isArray(documents) ? documents : [];
  return list.flatMap((document, index) => {
    const problems = [...document.errors, ...document.warnings];
    if (problems.length > 0)
      throw new Error(`${repoPath} document ${index + 1}: ${problems.map((p) => p.message).join('; ')}`);
    const value: Yaml = document.toJS();
    return value === null || value === undefined ? [] : [{ file: repoPath, index, value }];
  });
}

// ---- env files --------------------------------------------------------------------------------

/** KEY=value lines of an env file (comments and blank lines skipped), in order. */
export function envFile(repoPath: string): Map<string, string> {
  const entries = new Map<string, string>();
  read(repoPath)
    .split('\n')
    .forEach((line, index) => {
      const text = line.trim();
      if (text === '' || text.startsWith('#')) return;
      const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(text);
      if (!match) throw new Error(`${repoPath}:${index + 1}: not KEY=value`);
      entries.set(match[1], match[2]);
    });
  return entries;
}

// ---- the code ---------------------------------------------------------------------------------

/** The hand-written TypeScript sources of the packages, less the code generated from proto/. */
export function sourceFiles(): string[] {
  return workspacePackages()
    .filter((dir) => dir !== 'proto')
    .flatMap(filesUnder)
    .filter((file) => file.endsWith('.ts'));
}

/**
 * Environment variable names the code reads: `env.NAME`, `env['NAME']`, or `'NAME'` as a whole
 * string literal (as in `port(env, 'LEADFLOW_HTTP_PORT', ...)`). Comments and prose don't count.
 */
export function envNamesReadByCode(): Set<string> {
  const names = new Set<string>();
  const NAME = '((?:LEADFLOW|OTEL)_[A-Z0-9_]+|DATABASE_URL|REDIS_URL|NODE_ENV|NODE_OPTIONS)';
  const patterns = [
    new RegExp(`\\benv\\.${NAME}\\b`, 'g'),
    new RegExp(`\\benv\\[['"\`]${NAME}['"\`]\\]`, 'g'),
    new RegExp(`['"\`]${NAME}['"\`]`, 'g'),
  ];
  for (const file of sourceFiles()) {
    const text = read(file);
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) names.add(match[1]);
  }
  return names;
}

/** Where a package's tsconfig.json compiles from and to, relative to the package (src, dist). */
export interface CompilerLayout {
  rootDir: string;
  outDir: string;
}

export function compilerLayout(packageDir: string): CompilerLayout {
  const tsconfig = JSON.parse(read(`${packageDir}/tsconfig.json`)) as {
    compilerOptions: { outDir: string; rootDir: string };
  };
  return {
    rootDir: path.posix.normalize(tsconfig.compilerOptions.rootDir),
    outDir: path.posix.normalize(tsconfig.compilerOptions.outDir),
  };
}

/**
 * The TypeScript source `npm run build` compiles to a `PACKAGE/dist/...js` path (each package's
 * tsconfig.json: rootDir src, outDir dist), or why there is none.
 */
export function sourceOfCompiled(script: string): { source?: string; problem?: string } {
  const normalized = path.posix.normalize(script.replace(/^\.\//, '').replace(/^\/app\//, ''));
  const located = normalized.endsWith('.js') ? packageOf(normalized.slice(0, -3)) : undefined;
  if (!located || !exists(`${located.packageDir}/tsconfig.json`)) {
    return { problem: `${script} is not a compiled file of a workspace package (PACKAGE/dist/...js)` };
  }
  const { packageDir, inPackage } = located;
  const layout = compilerLayout(packageDir);
  if (!inPackage.startsWith(`${layout.outDir}/`)) {
    return { problem: `${script} is not under ${packageDir}/${layout.outDir}/, where its package compiles to` };
  }
  const source = path.posix.join(packageDir, layout.rootDir, `${inPackage.slice(layout.outDir.length + 1)}.ts`);
  if (!exists(source)) return { problem: `${script} would be compiled from ${source}, which does not exist` };
  return { source };
}

/** The node script a command line runs: the first argument ending in .js after `node`. */
export function scriptOf(argv: string[]): string | undefined {
  if (argv.length === 0 || path.posix.basename(argv[0]) !== 'node') return undefined;
  return argv.slice(1).find((arg) => !arg.startsWith('-') && arg.endsWith('.js'));
}

/** Paths the gateway's route plugins serve (`app.get('/health/live', ...)`). */
export function gatewayRoutes(): Set<string> {
  const routes = new Set<string>();
  for (const file of filesUnder('gateway/src/routes')) {
    for (const match of read(file).matchAll(/\bapp\.(?:get|head|post|put|patch|delete|all)\(\s*['"`]([^'"`]+)['"`]/g))
      routes.add(match[1]);
  }
  return routes;
}

/** Paths the distribution service's HTTP listener (metrics and probes) serves (`path === '/health/ready'`). */
export function distributionHttpRoutes(): Set<string> {
  const text = read('services/distribution/src/observability/metrics-server.ts');
  return new Set([...text.matchAll(/\bpath === ['"`]([^'"`]+)['"`]/g)].map((match) => match[1]));
}

/** Fully qualified gRPC service names declared in proto/ (`leadflow.distribution.v1.DistributionService`). */
export function protoServices(): Set<string> {
  const services = new Set<string>();
  for (const file of filesUnder('proto').filter((name) => name.endsWith('.proto'))) {
    const text = read(file);
    const pkg = /^\s*package\s+([\w.]+)\s*;/m.exec(text)?.[1];
    for (const match of text.matchAll(/^\s*service\s+(\w+)\s*\{/gm))
      services.add(pkg ? `${pkg}.${match[1]}` : match[1]);
  }
  return services;
}

/** Whether the distribution service registers the standard gRPC health service. */
export function distributionServesGrpcHealth(): boolean {
  return filesUnder('services/distribution/src')
    .filter((file) => file.endsWith('.ts'))
    .some((file) => /grpc-health-check|grpc\.health\.v1/.test(read(file)));
}

/** `new URL('../demo-market.yaml', import.meta.url)`: a data file beside the module. */
const BESIDE_MODULE = /new URL\(\s*['"`]([\w./-]+\.(?:ya?ml|proto|binpb))['"`],\s*import\.meta\.url\s*\)/g;
/** `'deploy/x.yaml'`: a data file by its path from the repository root. */
const REPOSITORY_PATH = /['"`]((?:[\w-]+\/)+[\w-][\w.-]*\.(?:ya?ml|proto|binpb))['"`]/g;

/**
 * Data files the code opens at run time, repository-relative, each with the source that reads it:
 * `new URL('../demo-market.yaml', import.meta.url)` resolved from the source file, which must reach
 * the same file from its compiled copy (PACKAGE/dist/ mirrors src/); a package's exported
 * data files (`./descriptor-sets/*` of @leadflow/proto); and literal repository paths.
 */
export function runtimeDataFileReferences(): Map<string, string> {
  const references = new Map<string, string>();
  for (const file of sourceFiles()) {
    const text = read(file);
    for (const [, relative] of text.matchAll(BESIDE_MODULE) as Iterable<[string, string]>) {
      const fromSource = path.posix.join(path.posix.dirname(file), relative);
      const compiled = sourceFileCompiledTo(file);
      const fromCompiled = path.posix.join(path.posix.dirname(compiled), relative);
      if (fromCompiled !== fromSource) {
        throw new Error(`${file} reads ${relative}: ${fromSource} from its source, ${fromCompiled} once compiled`);
      }
      references.set(fromSource, file);
    }
    for (const [, reference] of text.matchAll(REPOSITORY_PATH) as Iterable<[string, string]>)
      references.set(reference, file);
  }
  for (const dir of workspacePackages()) {
    const exportsMap = (JSON.parse(read(`${dir}/package.json`)) as { exports?: Record<string, unknown> }).exports ?? {};
    for (const [subpath, target] of Object.entries(exportsMap)) {
      if (typeof target !== 'string' || !subpath.endsWith('/*')) continue;
      for (const file of filesUnder(path.posix.join(dir, target.slice(0, -2))))
        references.set(file, `${dir}/package.json exports ${subpath}`);
    }
  }
  return references;
}

/** PACKAGE/src/x/y.ts -> PACKAGE/dist/x/y.js, by the package's tsconfig.json. */
function sourceFileCompiledTo(file: string): string {
  const located = file.endsWith('.ts') ? packageOf(file.slice(0, -3)) : undefined;
  if (!located) throw new Error(`${file} is not a package's source`);
  const { packageDir, inPackage } = located;
  const layout = compilerLayout(packageDir);
  return `${packageDir}/${layout.outDir}/${path.posix.relative(layout.rootDir, inPackage)}.js`;
}

// ---- Dockerfile -------------------------------------------------------------------------------

export interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

export interface Stage {
  name: string;
  /** The FROM image with build arguments substituted, or the name of an earlier stage. */
  from: string;
  instructions: Instruction[];
}

export interface CopyInstruction {
  from: string | undefined;
  sources: string[];
  destination: string;
  line: number;
}

/** What a stage ends up with, inherited through `FROM <stage>`. */
export interface StageResult {
  baseImage: string;
  workdir: string;
  entrypoint: string[] | undefined;
  cmd: string[] | undefined;
  env: Map<string, string>;
  user: string | undefined;
  exposed: number[];
  healthcheck: string | undefined;
  copies: { stage: string; copy: CopyInstruction; workdir: string }[];
  runs: string[];
}

export class Dockerfile {
  readonly stages: Stage[] = [];
  readonly args = new Map<string, string>();

  constructor(readonly file: string) {
    const lines = read(file).split('\n');
    let pending = '';
    let startLine = 0;
    lines.forEach((raw, index) => {
      const line = raw.trim();
      if (pending === '' && (line === '' || line.startsWith('#'))) return;
      if (pending !== '' && line.startsWith('#')) return;
      if (pending === '') startLine = index + 1;
      if (line.endsWith('\\')) {
        pending += `${line.slice(0, -1)} `;
        return;
      }
      this.add(`${pending}${line}`.trim(), startLine);
      pending = '';
    });
  }

  private add(text: string, line: number): void {
    const match = /^(\w+)\s+([\s\S]*)$/.exec(text);
    if (!match) throw new Error(`${this.file}:${line}: cannot read "${text}"`);
    const keyword = match[1].toUpperCase();
    const args = match[2].trim();
    if (keyword === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`${this.file}:${line}: cannot read FROM ${args}`);
      this.stages.push({
        name: from[2] ?? String(this.stages.length),
        from: this.substitute(from[1]),
        instructions: [],
      });
      return;
    }
    if (keyword === 'ARG' && this.stages.length === 0) {
      const [name, value = ''] = args.split('=');
      this.args.set(name, value);
      return;
    }
    const stage = this.stages.at(-1);
    if (!stage) throw new Error(`${this.file}:${line}: ${keyword} before FROM`);
    stage.instructions.push({ keyword, args, line });
  }

  private substitute(text: string): string {
    return text.replace(
      /\$\{(\w+)\}|\$(\w+)/g,
      (_all, braced: string | undefined, bare: string | undefined) => this.args.get((braced ?? bare) as string) ?? '',
    );
  }

  stage(name: string): Stage | undefined {
    return this.stages.find((stage) => stage.name === name);
  }

  /** The stage's image configuration and files, following `FROM <earlier stage>`. */
  result(name: string): StageResult {
    const stage = this.stage(name);
    if (!stage) throw new Error(`${this.file} has no stage ${name}`);
    const parent = this.stage(stage.from);
    const result: StageResult = parent
      ? structuredClone(this.result(parent.name))
      : {
          baseImage: stage.from,
          workdir: '/',
          entrypoint: undefined,
          cmd: undefined,
          env: new Map(),
          user: undefined,
          exposed: [],
          healthcheck: undefined,
          copies: [],
          runs: [],
        };
    for (const instruction of stage.instructions) {
      switch (instruction.keyword) {
        case 'WORKDIR':
          result.workdir = path.posix.resolve(result.workdir, instruction.args);
          break;
        case 'ENTRYPOINT':
          result.entrypoint = execForm(this.file, instruction);
          result.cmd = undefined; // Docker resets an inherited CMD when ENTRYPOINT is set.
          break;
        case 'CMD':
          result.cmd = execForm(this.file, instruction);
          break;
        case 'ENV':
          for (const pair of instruction.args.split(/\s+/)) {
            const [key, ...value] = pair.split('=');
            result.env.set(key, value.join('='));
          }
          break;
        case 'USER':
          result.user = instruction.args;
          break;
        case 'EXPOSE':
          result.exposed.push(...instruction.args.split(/\s+/).map((port) => Number(port.split('/')[0])));
          break;
        case 'HEALTHCHECK':
          result.healthcheck = instruction.args;
          break;
        case 'COPY':
        case 'ADD':
          result.copies.push({ stage: stage.name, copy: parseCopy(instruction), workdir: result.workdir });
          break;
        case 'RUN':
          result.runs.push(instruction.args);
          break;
        default:
          break;
      }
    }
    return result;
  }
}

function execForm(file: string, instruction: Instruction): string[] {
  if (!instruction.args.startsWith('['))
    throw new Error(`${file}:${instruction.line}: ${instruction.keyword} must use the exec (JSON) form`);
  return JSON.parse(instruction.args) as string[];
}

function parseCopy(instruction: Instruction): CopyInstruction {
  const tokens = instruction.args.split(/\s+/);
  let from: string | undefined;
  const rest: string[] = [];
  for (const token of tokens) {
    if (token.startsWith('--')) {
      const flag = /^--from=(.+)$/.exec(token);
      if (flag) from = flag[1];
    } else {
      rest.push(token);
    }
  }
  return { from, sources: rest.slice(0, -1), destination: rest.at(-1) as string, line: instruction.line };
}

// ---- .dockerignore ----------------------------------------------------------------------------

/** Docker's ignore-file rules: the last matching pattern decides; a pattern matching a directory covers what is in it. */
export class DockerIgnore {
  private readonly rules: { negate: boolean; pattern: RegExp }[] = [];

  constructor(readonly file: string) {
    for (const raw of read(file).split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const negate = line.startsWith('!');
      const pattern = path.posix.normalize((negate ? line.slice(1) : line).trim().replace(/^\/+/, ''));
      this.rules.push({ negate, pattern: globToRegExp(pattern) });
    }
  }

  /** Whether a repository-relative path is left out of the build context. */
  excludes(repoPath: string): boolean {
    const parts = repoPath.split('/');
    const candidates = parts.map((_, index) => parts.slice(0, index + 1).join('/'));
    let excluded = false;
    for (const rule of this.rules) {
      if (candidates.some((candidate) => rule.pattern.test(candidate))) excluded = !rule.negate;
    }
    return excluded;
  }
}

function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i];
    if (char === '*' && glob[i + 1] === '*') {
      if (glob[i + 2] === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (char === '*') {
      out += '[^/]*';
    } else if (char === '?') {
      out += '[^/]';
    } else {
      out += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${out}$`);
}
