// The files under deploy/ parse and reference what exists: entry points that a build produces,
// environment variables the code reads, routes and gRPC services it serves, stages of the
// Dockerfile, objects of the manifests. Renaming an entry point, an env var or a route without
// updating deploy/ fails here. Nothing is built or started: there is no container engine here.
import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadDistributionConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import { SERVICE_NODE_FLAGS } from '@leadflow/service-kit/service-node-flags';
import { expect } from 'chai';
import { makeCertificates } from '../support/tls-certificates.js';
import {
  abs,
  Dockerfile,
  DockerIgnore,
  distributionHttpRoutes,
  distributionServesGrpcHealth,
  envFile,
  envNamesReadByCode,
  exists,
  filesUnder,
  filesUnderPackage,
  gatewayRoutes,
  isDirectory,
  protoServices,
  read,
  rel,
  runtimeDataFileReferences,
  type StageResult,
  scriptOf,
  sourceOfCompiled,
  workspacePackages,
  type Yaml,
  type YamlDocument,
  yamlDocuments,
} from './deploy-files.js';

const DOCKERFILE = 'deploy/docker/Dockerfile';
const DOCKERIGNORE = 'deploy/docker/Dockerfile.dockerignore';
const COMPOSE = 'deploy/compose/compose.yaml';
const COMPOSE_SECRETS_EXAMPLE = 'deploy/compose/secrets.env.example';
const K8S = 'deploy/k8s';
const README = 'deploy/README.md';

/** Settings that are secrets: only ever in secret files and Secrets, never in shared settings. */
const SECRET_NAMES = [
  'LEADFLOW_ADMIN_TOKEN',
  'LEADFLOW_PII_KEYS',
  'LEADFLOW_HMAC_KEY',
  'LEADFLOW_METRICS_TOKEN',
  'DATABASE_URL',
];

/** The three processes and the compiled entry point each runs (package.json's bin is the CLI). */
const GATEWAY_MAIN = 'gateway/src/main.ts';
const DISTRIBUTION_MAIN = 'services/distribution/src/main.ts';
const CLI_MAIN = 'services/cli/src/main.ts';

type Env = Record<string, string>;

const envRead = envNamesReadByCode();
const dockerfile = new Dockerfile(DOCKERFILE);
const stageNames = dockerfile.stages.map((stage) => stage.name);

function expectReadByCode(names: Iterable<string>, where: string): void {
  for (const name of names) {
    expect(envRead.has(name), `${where} sets ${name}, which no code under services/ or gateway/ reads`).to.equal(true);
  }
}

/** The source file a command line runs, failing with the reason when it runs none that a build produces. */
function entrySource(argv: string[], where: string): string {
  const script = scriptOf(argv);
  expect(script, `${where} runs ${JSON.stringify(argv)}: no node script in it`).to.be.a('string');
  const { source, problem } = sourceOfCompiled(script as string);
  expect(problem, `${where}: ${problem}`).to.equal(undefined);
  return source as string;
}

/** The command line a container runs: its own entrypoint/command, else the image stage's. */
function effectiveArgv(stage: StageResult, entrypoint: string[] | undefined, command: string[] | undefined): string[] {
  const ep = entrypoint ?? stage.entrypoint ?? [];
  const cmd = command ?? (entrypoint ? [] : (stage.cmd ?? []));
  return [...ep, ...cmd];
}

function loads(
  kind: 'gateway' | 'distribution',
  env: Env,
  where: string,
): ReturnType<typeof loadGatewayConfig> | ReturnType<typeof loadDistributionConfig> {
  try {
    return kind === 'gateway' ? loadGatewayConfig(env) : loadDistributionConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) throw new Error(`${where}: the ${kind} would refuse to start: ${error.message}`);
    throw error;
  }
}

/** `dns:///host:port`, `dns:host:port` or `host:port` -> host and port (as grpc-js reads them). */
function grpcTarget(address: string): { host: string; port: number } {
  const target = address.replace(/^dns:(\/\/[^/]*\/)?/, '');
  const match = /^([^:]+):(\d+)$/.exec(target);
  if (!match) throw new Error(`${address} is not [dns:///]host:port`);
  return { host: match[1], port: Number(match[2]) };
}

/** Every port a process's settings make it listen on (the config's `...Port` fields), sorted. */
function listeningPorts(config: object): number[] {
  return Object.entries(config)
    .filter(([key, value]) => /Port$/.test(key) && typeof value === 'number')
    .map(([, value]) => value as number)
    .sort((a, b) => a - b);
}

function sleepSeconds(lifecycle: Yaml): number {
  const command: string[] | undefined = lifecycle?.preStop?.exec?.command;
  if (command?.[0] === 'sleep') return Number(command[1]);
  return Number(lifecycle?.preStop?.sleep?.seconds ?? 0);
}

// ---- Dockerfile ---------------------------------------------------------------------------------

describe('deploy: Dockerfile', () => {
  const ignore = new DockerIgnore(DOCKERIGNORE);
  const runtime = dockerfile.result('runtime');

  it('has a build stage on a supported Node LTS image that installs from the lockfile, compiles and prunes', () => {
    const build = dockerfile.result('build');
    const nodeMajor = Number(/^node:(\d+)-bookworm-slim$/.exec(build.baseImage)?.[1]);
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    expect(
      nodeMajor,
      `${build.baseImage}: an even (LTS) Node line that package.json engines (${engines}) allows`,
    ).to.satisfy((major: number) => major % 2 === 0 && major >= Number(/^>=(\d+)/.exec(engines)?.[1]));
    const runs = build.runs.join('\n');
    for (const tool of ['python3', 'make', 'g++'])
      expect(runs, `the build stage installs ${tool} for better-sqlite3`).to.include(tool);
    expect(runs).to.match(/npm ci\b/);
    if (/npm ci[^\n]*--ignore-scripts/.test(runs))
      expect(runs, 'with --ignore-scripts, better-sqlite3 is rebuilt by name').to.match(/npm rebuild better-sqlite3/);
    expect(runs).to.match(/npm run build\b/);
    expect(runs).to.match(/npm prune --omit=dev\b/);
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build, 'package.json has the build script the image runs').to.be.a('string');
  });

  it('copies only files that exist and that the ignore file lets into the build context', () => {
    for (const name of stageNames) {
      for (const { copy } of dockerfile.result(name).copies.filter((entry) => entry.stage === name)) {
        if (copy.from !== undefined) continue;
        for (const source of copy.sources) {
          const where = `${DOCKERFILE}:${copy.line} COPY ${source}`;
          expect(exists(source), `${where}: no such file in the repository`).to.equal(true);
          expect(ignore.excludes(source), `${where}: ${DOCKERIGNORE} leaves it out of the context`).to.equal(false);
        }
      }
    }
  });

  it('sends the sources of every entry point to the builder, and never secrets or local builds', () => {
    for (const source of [
      GATEWAY_MAIN,
      DISTRIBUTION_MAIN,
      CLI_MAIN,
      'services/simulator/src/main.ts',
      'package-lock.json',
    ]) {
      expect(ignore.excludes(source), `${source} must reach the builder`).to.equal(false);
    }
    for (const kept of [
      '.leadflow/secrets.json',
      'deploy/compose/secrets.env',
      'deploy/compose/certs/ca/ca.key',
      'deploy/compose/certs/gateway/tls.key',
      'node_modules/x/index.js',
      'gateway/dist/main.js',
      '.git/config',
    ]) {
      expect(ignore.excludes(kept), `${kept} must not reach the builder`).to.equal(true);
    }
  });

  it('copies into the runtime stage only what the build produced, the data files the code reads with it', () => {
    const build = dockerfile.result('build');
    const producedByBuild = new Set([
      path.posix.join(build.workdir, 'node_modules'),
      ...build.copies.flatMap(({ copy, workdir }) =>
        copy.from === undefined
          ? copy.sources.map((source) =>
              path.posix.resolve(
                workdir,
                copy.destination.endsWith('/')
                  ? path.posix.join(copy.destination, path.posix.basename(source))
                  : copy.destination,
              ),
            )
          : [],
      ),
    ]);
    const runtimeFiles: string[] = [];
    for (const { copy, workdir } of runtime.copies) {
      const destination = path.posix.resolve(workdir, copy.destination);
      for (const source of copy.sources) {
        const where = `${DOCKERFILE}:${copy.line}`;
        // The compiled code finds its data files beside its package's sources: each keeps its repository path.
        const repositoryPath =
          copy.from === undefined
            ? source
            : path.posix.relative(build.workdir, path.posix.resolve(build.workdir, source));
        if (copy.from !== undefined) {
          expect(stageNames, `${where}: --from=${copy.from} is not a stage`).to.include(copy.from);
          expect([...producedByBuild], `${where}: ${source} is not something the ${copy.from} stage has`).to.include(
            source,
          );
        }
        expect(destination, `${where}: ${source} must keep its repository path under ${runtime.workdir}`).to.equal(
          path.posix.join(runtime.workdir, repositoryPath),
        );
        if (repositoryPath === 'node_modules' || !exists(repositoryPath)) continue;
        runtimeFiles.push(
          ...(isDirectory(repositoryPath)
            ? filesUnder(repositoryPath).filter((file) => !ignore.excludes(file))
            : [repositoryPath]),
        );
      }
    }
    // Files of the production dependencies ship with node_modules (grpc-health-check's health.proto).
    const shipsNodeModules = runtime.copies.some(
      ({ copy }) =>
        copy.from !== undefined && copy.sources.some((source) => path.posix.basename(source) === 'node_modules'),
    );
    const dependencies = workspacePackages().flatMap((dir) =>
      Object.keys(
        (JSON.parse(read(`${dir}/package.json`)) as { dependencies?: Record<string, string> }).dependencies ?? {},
      ),
    );
    const dependencyFiles = shipsNodeModules
      ? dependencies.flatMap((name) =>
          !name.startsWith('@leadflow/') && isDirectory(`node_modules/${name}`)
            ? filesUnderPackage(`node_modules/${name}`)
            : [],
        )
      : [];
    const references = runtimeDataFileReferences();
    expect(references.size, 'data files the code reads (a check that sees none passes for nothing)').to.be.greaterThan(
      2,
    );
    for (const [reference, file] of references) {
      const shipped = [...runtimeFiles, ...dependencyFiles].some(
        (candidate) => candidate === reference || candidate.endsWith(`/${reference}`),
      );
      expect(shipped, `${file} reads ${reference} at run time, and the runtime stage does not copy it`).to.equal(true);
    }
  });

  it('runs as a numeric non-root user with node as the entry point', () => {
    expect(runtime.baseImage).to.equal(dockerfile.result('build').baseImage);
    expect(runtime.user, 'USER uid:gid, numeric so that Kubernetes can check runAsNonRoot').to.match(
      /^[1-9]\d*(:\d+)?$/,
    );
    expect(runtime.entrypoint).to.deep.equal(['node']);
  });

  it("runs the gateway and the distribution service with the services' heap sizing", () => {
    for (const target of ['gateway', 'distribution'] as const) {
      const argv = effectiveArgv(dockerfile.result(target), undefined, undefined);
      expect(argv.slice(1, -1), `--target ${target}: node's flags before the script`).to.deep.equal(
        SERVICE_NODE_FLAGS[target],
      );
    }
  });

  it('has a target per process that runs that process, with ports that match its settings', () => {
    const expected: Record<string, string> = { gateway: GATEWAY_MAIN, distribution: DISTRIBUTION_MAIN, cli: CLI_MAIN };
    for (const [target, main] of Object.entries(expected)) {
      const stage = dockerfile.result(target);
      expect(entrySource(effectiveArgv(stage, undefined, undefined), `--target ${target}`)).to.equal(main);
      expectReadByCode(stage.env.keys(), `--target ${target} (ENV)`);
      expect(stage.user).to.equal(runtime.user);
    }
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };
    expect(sourceOfCompiled(pkg.bin.leadflow).source, "the cli target runs package.json's bin").to.equal(CLI_MAIN);

    const gateway = dockerfile.result('gateway');
    const gatewayConfig = loadGatewayConfig(Object.fromEntries(gateway.env));
    expect(
      [...gateway.exposed].sort((a, b) => a - b),
      'EXPOSE lists every port the gateway listens on',
    ).to.deep.equal(listeningPorts(gatewayConfig));
    expect(gatewayConfig.httpHost).to.equal('0.0.0.0');
    const distribution = dockerfile.result('distribution');
    const distributionConfig = loadDistributionConfig(Object.fromEntries(distribution.env));
    expect(
      [...distribution.exposed].sort((a, b) => a - b),
      'EXPOSE lists every port the distribution service listens on',
    ).to.deep.equal(listeningPorts(distributionConfig));
    expect(distributionConfig.grpcHost, 'the distribution service must listen beyond the container').to.equal(
      '0.0.0.0',
    );
  });

  it('health checks the gateway on a route it serves', () => {
    const routes = gatewayRoutes();
    const check = dockerfile.result('gateway').healthcheck ?? '';
    const paths = [...check.matchAll(/\/health\/[\w-]+/g)].map((match) => match[0]);
    expect(paths, 'the gateway target has a HEALTHCHECK on a /health route').to.have.length.greaterThan(0);
    for (const route of paths) expect([...routes], `HEALTHCHECK calls ${route}`).to.include(route);
    expect(dockerfile.result('distribution').healthcheck, 'the distribution target has a HEALTHCHECK').to.be.a(
      'string',
    );
  });
});

// ---- compose ------------------------------------------------------------------------------------

describe('deploy: compose', () => {
  const composeDir = path.posix.dirname(COMPOSE);
  const compose: Yaml = yamlDocuments(COMPOSE)[0].value;
  const services: Record<string, Yaml> = compose.services;
  const secretsExample = envFile(COMPOSE_SECRETS_EXAMPLE);
  // Values standing in for the user's secrets.env, generated as its comments say (hex is fine for each), to
  // interpolate the file the way compose does.
  const placeholderSecrets: Env = Object.fromEntries(
    [...secretsExample.keys()].map((name) => [name, randomBytes(24).toString('hex')]),
  );

  function interpolate(value: string): string {
    return String(value).replace(
      /\$\{(\w+)(?::?[-?+][^}]*)?\}/g,
      (_all, name: string) => placeholderSecrets[name] ?? '',
    );
  }

  function environmentOf(service: Yaml): Env {
    const environment = service.environment ?? {};
    const entries: [string, string][] = Array.isArray(environment)
      ? environment.map((item: string) => {
          const [key, ...value] = item.split('=');
          return [key, value.join('=')];
        })
      : Object.entries(environment).map(([key, value]) => [key, String(value)]);
    return Object.fromEntries(entries.map(([key, value]) => [key, interpolate(value)]));
  }

  function envFilesOf(service: Yaml): string[] {
    const list =
      service.env_file === undefined ? [] : Array.isArray(service.env_file) ? service.env_file : [service.env_file];
    return list.map((entry: string | { path: string }) =>
      path.posix.join(composeDir, typeof entry === 'string' ? entry : entry.path),
    );
  }

  function stageOf(service: Yaml): StageResult | undefined {
    return service.build ? dockerfile.result(service.build.target) : undefined;
  }

  /** The environment a leadflow container starts with: image ENV, then env_file, then environment. */
  function containerEnv(service: Yaml): Env {
    const env: Env = Object.fromEntries(stageOf(service)?.env ?? []);
    for (const file of envFilesOf(service)) Object.assign(env, Object.fromEntries(envFile(file)));
    return Object.assign(env, environmentOf(service));
  }

  function argvOf(service: Yaml): string[] {
    const stage = stageOf(service);
    if (!stage) return [];
    const asList = (value: Yaml): string[] | undefined =>
      value === undefined ? undefined : Array.isArray(value) ? value : String(value).split(/\s+/);
    return effectiveArgv(stage, asList(service.entrypoint), asList(service.command));
  }

  const leadflowServices = Object.entries(services).filter(([, service]) => service.build);
  const running = (main: string): [string, Yaml][] =>
    leadflowServices.filter(([, service]) => sourceOfCompiled(scriptOf(argvOf(service)) ?? '').source === main);

  it('parses, with the services the stack needs', () => {
    expect(services.mysql?.image).to.match(/^mysql:8/);
    expect(services.mysql?.healthcheck?.test, 'MySQL has a health check').to.exist;
    expect(services.mysql?.environment?.MYSQL_DATABASE).to.be.a('string');
    expect(services.mysql?.environment?.MYSQL_USER).to.be.a('string');
    expect(services.redis?.image).to.match(/^redis:7/);
    expect(services.jaeger?.image).to.match(/jaeger/);
    expect(services.jaeger?.ports).to.include('16686:16686');
    expect(running(GATEWAY_MAIN).map(([name]) => name)).to.deep.equal(['gateway']);
    expect(running(DISTRIBUTION_MAIN).map(([name]) => name)).to.deep.equal(['distribution']);
    expect(services.gateway.deploy?.replicas).to.be.at.least(2);
    expect(services.distribution.deploy?.replicas).to.be.at.least(2);
    expect(services.lb?.ports).to.include('3000:3000');
  });

  it('builds each leadflow service from the Dockerfile, with a target that exists, running an entry point a build produces', () => {
    expect(leadflowServices.length).to.be.at.least(3);
    for (const [name, service] of leadflowServices) {
      expect(
        path.resolve(abs(composeDir), service.build.context),
        `${name}: build context is the repository root`,
      ).to.equal(path.resolve(abs('.')));
      expect(rel(path.resolve(abs(composeDir), service.build.context, service.build.dockerfile))).to.equal(DOCKERFILE);
      expect(stageNames, `${name}: build target ${service.build.target}`).to.include(service.build.target);
      expect(service.image, `${name}: image named after its target`).to.match(
        new RegExp(`^leadflow-${service.build.target}(:|$)`),
      );
      entrySource(argvOf(service), `${COMPOSE} service ${name}`);
      expect(service.read_only, `${name}: read-only root filesystem`).to.equal(true);
    }
  });

  it('sets only environment variables the code reads, from files that exist', () => {
    for (const [name, service] of leadflowServices) {
      for (const file of envFilesOf(service)) {
        expect(exists(file), `${name}: env_file ${file}`).to.equal(true);
        expectReadByCode(envFile(file).keys(), `${file}`);
      }
      expectReadByCode(Object.keys(environmentOf(service)), `${COMPOSE} service ${name}`);
    }
  });

  it('takes every secret from secrets.env, which ships empty and is git-ignored', () => {
    const text = read(COMPOSE);
    const used = new Set([...text.matchAll(/\$\{(\w+)(?::?[-?+][^}]*)?\}/g)].map((match) => match[1]));
    expect(
      [...used].sort(),
      `every \${VAR} in ${COMPOSE} is in ${COMPOSE_SECRETS_EXAMPLE}, and every one there is used`,
    ).to.deep.equal([...secretsExample.keys()].sort());
    for (const [key, value] of secretsExample)
      expect(value, `${COMPOSE_SECRETS_EXAMPLE}: ${key} ships empty`).to.equal('');
    for (const [name, service] of leadflowServices) {
      for (const file of envFilesOf(service)) {
        for (const secret of SECRET_NAMES)
          expect(envFile(file).has(secret), `${file} (shared settings) holds ${secret}`).to.equal(false);
      }
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (SECRET_NAMES.includes(key))
          expect(String(value), `${name}: ${key} comes from secrets.env`).to.match(/\$\{\w+/);
      }
    }
    const ignored = read(`${composeDir}/.gitignore`)
      .split('\n')
      .map((line) => line.trim());
    expect(ignored).to.include('secrets.env');
  });

  it('starts services after the ones they depend on are healthy, where a health check exists', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, condition] of Object.entries<Yaml>(service.depends_on ?? {})) {
        expect(services, `${name} depends on ${dependency}`).to.have.property(dependency);
        if (condition?.condition === 'service_healthy') {
          const target = services[dependency];
          const hasCheck = Boolean(target.healthcheck?.test) || Boolean(stageOf(target)?.healthcheck);
          expect(hasCheck, `${name} waits for ${dependency} to be healthy, which has no health check`).to.equal(true);
        }
      }
    }
  });

  it('gives each process settings it starts with, pointing at services of the stack', () => {
    const [[, distribution]] = running(DISTRIBUTION_MAIN);
    const distributionEnv = containerEnv(distribution);
    const distributionConfig = loads('distribution', distributionEnv, 'compose distribution') as ReturnType<
      typeof loadDistributionConfig
    >;
    expect(distributionConfig.grpcHost).to.equal('0.0.0.0');
    const database = new URL(distributionConfig.databaseUrl as string);
    const mysql = environmentOf(services[database.hostname]);
    expect(services[database.hostname].image, 'DATABASE_URL names the MySQL service').to.match(/^mysql:8/);
    expect(database.pathname.slice(1)).to.equal(mysql.MYSQL_DATABASE);
    expect(database.username).to.equal(mysql.MYSQL_USER);
    expect(decodeURIComponent(database.password), "DATABASE_URL's password is MySQL's MYSQL_PASSWORD").to.equal(
      mysql.MYSQL_PASSWORD,
    );

    const [[, gateway]] = running(GATEWAY_MAIN);
    const gatewayConfig = loads('gateway', containerEnv(gateway), 'compose gateway') as ReturnType<
      typeof loadGatewayConfig
    >;
    const target = grpcTarget(gatewayConfig.distributionAddress);
    expect(target.host, 'the gateways reach the distribution service by its compose name').to.equal('distribution');
    expect(target.port).to.equal(distributionConfig.grpcPort);
    expect(
      services[new URL(gatewayConfig.redisUrl as string).hostname]?.image,
      'REDIS_URL names the Redis service',
    ).to.match(/^redis:7/);
    for (const env of [containerEnv(gateway), distributionEnv]) {
      const url = new URL(env.OTEL_EXPORTER_OTLP_ENDPOINT as string);
      expect(services[url.hostname]?.image, 'OTEL_EXPORTER_OTLP_ENDPOINT names the Jaeger service').to.match(/jaeger/);
      expect(url.port).to.equal('4318');
    }

    const cli = services.leadflow;
    expect(cli?.profiles, 'the CLI service runs on demand only').to.be.an('array').that.is.not.empty;
    expect(entrySource(argvOf(cli), 'compose leadflow')).to.equal(CLI_MAIN);
    const cliEnv = containerEnv(cli);
    expect(grpcTarget(cliEnv.LEADFLOW_ADMIN_ADDRESS).host).to.equal('distribution');
    expect(cliEnv.LEADFLOW_ADMIN_TOKEN).to.equal(distributionEnv.LEADFLOW_ADMIN_TOKEN);
  });

  it('puts the load balancer in front of the gateways on their port, with a config file that exists', () => {
    const [[gatewayName, gateway]] = running(GATEWAY_MAIN);
    const gatewayConfig = loadGatewayConfig(containerEnv(gateway));
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = String(typeof volume === 'string' ? volume.split(':')[0] : volume.source);
        // Certificates are made by the user (deploy/tls/make-certs.sh), like secrets.env: checked below.
        if (source.startsWith('./certs/')) continue;
        if (source.startsWith('.'))
          expect(exists(path.posix.join(composeDir, source)), `${name}: volume ${source}`).to.equal(true);
      }
    }
    const nginx = read(`${composeDir}/nginx.conf`);
    const servers = [...nginx.matchAll(/^\s*server\s+([\w.-]+):(\d+)\b/gm)].map((match) => ({
      host: match[1],
      port: Number(match[2]),
    }));
    expect(servers).to.deep.equal([{ host: gatewayName, port: gatewayConfig.httpPort }]);
    expect(nginx, 'the balancer does not log the request path, which carries the key').to.not.match(
      /log_format[^;]*\$(request|request_uri|uri)\b/,
    );
  });

  it('runs gRPC over mutual TLS with the certificates make-certs.sh makes, mounted where each process reads them', async function () {
    this.timeout(30_000);
    const certs = await makeCertificates();
    try {
      const ignored = read(`${composeDir}/.gitignore`)
        .split('\n')
        .map((line) => line.trim());
      expect(ignored, 'the certificates are never committed').to.include('certs/');
      expect(read(README), `${README} says how to make them`).to.include(
        'deploy/tls/make-certs.sh deploy/compose/certs',
      );

      /** The file of the made certificates that a path inside a container is, through the service's volumes. */
      const madeFile = (service: Yaml, file: string): string => {
        const mount = (service.volumes ?? [])
          .map((volume: string) => volume.split(':'))
          .find(([, target]: string[]) => path.posix.dirname(file) === target);
        expect(mount, `a volume is mounted at ${path.posix.dirname(file)}`).to.exist;
        expect(mount[0], 'mounted from certs/').to.match(/^\.\/certs\/[\w-]+$/);
        expect(mount[2], 'read-only').to.equal('ro');
        const made = path.join(certs.dir, mount[0].slice('./certs/'.length), path.posix.basename(file));
        expect(existsSync(made), `make-certs.sh makes ${mount[0]}/${path.posix.basename(file)}`).to.equal(true);
        return made;
      };

      const [[, distribution]] = running(DISTRIBUTION_MAIN);
      const server = (
        loads('distribution', containerEnv(distribution), 'compose distribution') as ReturnType<
          typeof loadDistributionConfig
        >
      ).grpcTransport;
      expect(server.tls?.clientCa, 'the distribution services ask clients for certificates').to.exist;
      const serverCert = new X509Certificate(readFileSync(madeFile(distribution, server.tls!.identity.cert.path)));
      madeFile(distribution, server.tls!.identity.key.path);
      const clientCa = new X509Certificate(readFileSync(madeFile(distribution, server.tls!.clientCa!.path)));

      const [[, gateway]] = running(GATEWAY_MAIN);
      const gatewayConfig = loads('gateway', containerEnv(gateway), 'compose gateway') as ReturnType<
        typeof loadGatewayConfig
      >;
      const client = gatewayConfig.distributionTransport?.tls;
      expect(client?.identity, 'the gateways present a client certificate').to.exist;
      const gatewayCert = new X509Certificate(readFileSync(madeFile(gateway, client!.identity!.cert.path)));
      expect(
        gatewayCert.verify(clientCa.publicKey),
        "the gateway's certificate is of the CA the service trusts",
      ).to.equal(true);
      expect(gatewayCert.subject).to.include(`CN=${server.gatewayIdentities[0]}`);
      const gatewayCa = new X509Certificate(readFileSync(madeFile(gateway, client!.ca.path)));
      expect(serverCert.verify(gatewayCa.publicKey), "the gateway trusts the CA of the service's certificate").to.equal(
        true,
      );
      expect(
        serverCert.checkHost(grpcTarget(gatewayConfig.distributionAddress).host),
        'the service certificate names the host the gateways dial',
      ).to.be.a('string');

      const cli = services.leadflow;
      const cliEnv = containerEnv(cli);
      const cliCert = new X509Certificate(readFileSync(madeFile(cli, cliEnv.LEADFLOW_ADMIN_TLS_CERT)));
      madeFile(cli, cliEnv.LEADFLOW_ADMIN_TLS_KEY);
      madeFile(cli, cliEnv.LEADFLOW_ADMIN_TLS_CA);
      expect(cliCert.verify(clientCa.publicKey)).to.equal(true);
      expect(cliCert.subject, 'the CLI is not a gateway').to.not.include(`CN=${server.gatewayIdentities[0]}`);
      expect(
        serverCert.checkHost(grpcTarget(cliEnv.LEADFLOW_ADMIN_ADDRESS).host),
        'the service certificate names the host the CLI dials',
      ).to.be.a('string');
    } finally {
      await certs.remove();
    }
  });

  it('runs the buyer simulator, when asked, from a file the image holds', () => {
    const simulator = services.simulator;
    if (!simulator) return;
    const argv = argvOf(simulator);
    expect(entrySource(argv, 'compose simulator')).to.equal('services/simulator/src/main.ts');
    const config = argv[argv.indexOf('--config') + 1];
    expect(exists(config), `--config ${config}`).to.equal(true);
    const buildDir = dockerfile.result('build').workdir;
    const copied = (stageOf(simulator)?.copies ?? []).flatMap(({ copy }) =>
      copy.sources.map((source) => (copy.from === undefined ? source : path.posix.relative(buildDir, source))),
    );
    expect(copied.some((source) => config === source || config.startsWith(`${source}/`))).to.equal(true);
  });
});

// ---- Kubernetes ---------------------------------------------------------------------------------

describe('deploy: Kubernetes manifests', () => {
  const files = filesUnder(K8S).filter((file) => /\.ya?ml$/.test(file));
  const documents: YamlDocument[] = files.flatMap((file) => yamlDocuments(file));
  const kustomization: Yaml = documents.find((doc) => doc.value.kind === 'Kustomization')?.value;
  const objects = documents.filter((doc) => doc.value.kind !== 'Kustomization');
  const ofKind = (kind: string): Yaml[] => objects.filter((doc) => doc.value.kind === kind).map((doc) => doc.value);
  const named = (kind: string, name: string): Yaml | undefined =>
    ofKind(kind).find((object) => object.metadata?.name === name);
  const deployments = ofKind('Deployment');
  const configMaps = ofKind('ConfigMap');
  const secrets = ofKind('Secret');
  const secretData = (secret: Yaml): Record<string, string> => ({
    ...Object.fromEntries(
      Object.entries<string>(secret?.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()]),
    ),
    ...(secret?.stringData ?? {}),
  });
  // The Secret as a user fills the template: each REPLACE_ME replaced by a value they generated (the processes refuse REPLACE_ME).
  const filledValues = new Map<string, string>();
  const filledSecret = (secret: Yaml): Record<string, string> =>
    Object.fromEntries(
      Object.entries(secretData(secret)).map(([key, value]) => {
        if (!filledValues.has(key)) filledValues.set(key, randomBytes(24).toString('hex'));
        return [key, value.replaceAll('REPLACE_ME', filledValues.get(key)!)];
      }),
    );
  const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined): boolean =>
    Object.keys(selector).length > 0 && Object.entries(selector).every(([key, value]) => labels?.[key] === value);

  function containerStage(container: Yaml): StageResult {
    const image = String(container.image);
    const target = /^leadflow-([\w-]+)$/.exec(image)?.[1];
    expect(target, `image ${image}: named leadflow-<Dockerfile target>, rewritten by kustomization images`).to.be.a(
      'string',
    );
    expect(stageNames).to.include(target);
    return dockerfile.result(target as string);
  }

  function mainOf(container: Yaml): string {
    return entrySource(
      effectiveArgv(containerStage(container), container.command, container.args),
      `container ${container.name}`,
    );
  }

  /** The environment a container starts with: image ENV, then envFrom, then env (valueFrom resolved). */
  function containerEnv(container: Yaml): Env {
    const env: Env = Object.fromEntries(containerStage(container).env);
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef) Object.assign(env, named('ConfigMap', source.configMapRef.name)?.data);
      if (source.secretRef) Object.assign(env, filledSecret(named('Secret', source.secretRef.name)));
    }
    for (const variable of container.env ?? []) {
      const fromSecret = variable.valueFrom?.secretKeyRef;
      const fromConfig = variable.valueFrom?.configMapKeyRef;
      env[variable.name] = fromSecret
        ? filledSecret(named('Secret', fromSecret.name))[fromSecret.key]
        : fromConfig
          ? named('ConfigMap', fromConfig.name)?.data?.[fromConfig.key]
          : String(variable.value);
    }
    return env;
  }

  function containerPort(container: Yaml, port: string | number): number | undefined {
    const ports: Yaml[] = container.ports ?? [];
    return typeof port === 'number'
      ? ports.find((entry) => entry.containerPort === port)?.containerPort
      : ports.find((entry) => entry.name === port)?.containerPort;
  }

  const deploymentRunning = (main: string): Yaml => {
    const found = deployments.filter((deployment) =>
      deployment.spec.template.spec.containers.some((container: Yaml) => mainOf(container) === main),
    );
    expect(found, `one Deployment runs ${main}`).to.have.length(1);
    return found[0];
  };

  function mountedSecretNames(): Set<string> {
    return new Set(
      deployments.flatMap((deployment) =>
        (deployment.spec.template.spec.volumes ?? []).flatMap((volume: Yaml) =>
          volume.secret ? [volume.secret.secretName] : [],
        ),
      ),
    );
  }

  /** The Secret key a container reads at `file`, through its volume mounts, or why there is none. */
  function mountedSecretKey(
    deployment: Yaml,
    container: Yaml,
    file: string,
  ): { secret?: string; key?: string; problem?: string } {
    const mount = (container.volumeMounts ?? []).find(
      (candidate: Yaml) => path.posix.dirname(file) === path.posix.normalize(candidate.mountPath),
    );
    if (!mount) return { problem: `no volume is mounted at ${path.posix.dirname(file)}` };
    const volume = (deployment.spec.template.spec.volumes ?? []).find(
      (candidate: Yaml) => candidate.name === mount.name,
    );
    if (!volume?.secret) return { problem: `volume ${mount.name} is not a Secret` };
    return { secret: volume.secret.secretName, key: path.posix.basename(file) };
  }

  it('parses, and the kustomization lists exactly the files present', () => {
    expect(kustomization, `${K8S}/kustomization.yaml`).to.exist;
    const listed: string[] = kustomization.resources;
    expect(new Set(listed).size, 'no file listed twice').to.equal(listed.length);
    const present = files
      .filter((file) => path.posix.basename(file) !== 'kustomization.yaml')
      .map((file) => path.posix.relative(K8S, file));
    expect([...listed].sort()).to.deep.equal(present.sort());
    for (const { file, value } of objects) {
      expect(value.apiVersion, `${file}: apiVersion`).to.be.a('string');
      expect(value.metadata?.name, `${file}: metadata.name`).to.be.a('string');
    }
    const keys = objects.map(({ value }) => `${value.kind}/${value.metadata.name}`);
    expect(new Set(keys).size, 'no object defined twice').to.equal(keys.length);
  });

  it('puts everything in the namespace it creates', () => {
    const namespaces = ofKind('Namespace');
    expect(namespaces).to.have.length(1);
    expect(kustomization.namespace).to.equal(namespaces[0].metadata.name);
    for (const { value } of objects)
      if (value.metadata.namespace) expect(value.metadata.namespace).to.equal(kustomization.namespace);
  });

  it('runs a gateway and a distribution Deployment, each on an entry point a build produces, with an image the kustomization sets', () => {
    const imageNames = (kustomization.images ?? []).map((image: Yaml) => image.name);
    expect(deployments.length).to.be.at.least(2);
    for (const deployment of deployments) {
      const where = `Deployment ${deployment.metadata.name}`;
      expect(
        matches(deployment.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
        `${where}: selector matches its pods`,
      ).to.equal(true);
      expect(deployment.spec.replicas, `${where}: replicas`).to.be.at.least(2);
      for (const container of deployment.spec.template.spec.containers) {
        mainOf(container);
        expect(imageNames, `${where}: image ${container.image} is set by the kustomization`).to.include(
          container.image,
        );
      }
    }
    deploymentRunning(GATEWAY_MAIN);
    deploymentRunning(DISTRIBUTION_MAIN);
  });

  it("runs the gateway and the distribution service with the services' heap sizing, as the images do", () => {
    for (const [main, service] of [
      [GATEWAY_MAIN, 'gateway'],
      [DISTRIBUTION_MAIN, 'distribution'],
    ] as const) {
      for (const container of deploymentRunning(main).spec.template.spec.containers) {
        const argv = effectiveArgv(containerStage(container), container.command, container.args);
        expect(argv.slice(1, -1), `container ${container.name}: node's flags before the script`).to.deep.equal(
          SERVICE_NODE_FLAGS[service],
        );
      }
    }
  });

  it('sets only environment variables the code reads, from ConfigMap and Secret keys that exist', () => {
    for (const deployment of deployments) {
      for (const container of deployment.spec.template.spec.containers) {
        const where = `Deployment ${deployment.metadata.name} container ${container.name}`;
        for (const source of container.envFrom ?? []) {
          const ref = source.configMapRef ?? source.secretRef;
          const kind = source.configMapRef ? 'ConfigMap' : 'Secret';
          expect(named(kind, ref.name), `${where}: envFrom ${kind} ${ref.name}`).to.exist;
        }
        for (const variable of container.env ?? []) {
          expectReadByCode([variable.name], where);
          const fromSecret = variable.valueFrom?.secretKeyRef;
          const fromConfig = variable.valueFrom?.configMapKeyRef;
          if (fromSecret)
            expect(
              secretData(named('Secret', fromSecret.name) ?? {}),
              `${where}: ${variable.name} from Secret ${fromSecret.name}`,
            ).to.have.property(fromSecret.key);
          if (fromConfig)
            expect(
              named('ConfigMap', fromConfig.name)?.data ?? {},
              `${where}: ${variable.name} from ConfigMap ${fromConfig.name}`,
            ).to.have.property(fromConfig.key);
        }
      }
    }
    for (const configMap of configMaps) {
      expectReadByCode(Object.keys(configMap.data ?? {}), `ConfigMap ${configMap.metadata.name}`);
      for (const secret of SECRET_NAMES)
        expect(configMap.data, `ConfigMap ${configMap.metadata.name} holds ${secret}`).to.not.have.property(secret);
    }
    // Secrets mounted as files (certificates) hold file names, not settings.
    for (const secret of secrets.filter((candidate) => !mountedSecretNames().has(candidate.metadata.name))) {
      expectReadByCode(Object.keys(secretData(secret)), `Secret ${secret.metadata.name}`);
    }
    const referenced = JSON.stringify(deployments);
    for (const object of [...configMaps, ...secrets])
      expect(referenced, `${object.kind} ${object.metadata.name} is used by a Deployment`).to.include(
        `"${object.metadata.name}"`,
      );
  });

  it('ships the Secret as a template of placeholders, not secrets', () => {
    for (const secret of secrets) {
      for (const [key, value] of Object.entries(secretData(secret)))
        expect(value, `Secret ${secret.metadata.name} ${key}`).to.match(/REPLACE_ME/);
    }
  });

  it('gives each process settings it starts with, on the ports its probes and Services use', () => {
    const gateway = deploymentRunning(GATEWAY_MAIN);
    const [gatewayContainer] = gateway.spec.template.spec.containers;
    const gatewayConfig = loads('gateway', containerEnv(gatewayContainer), 'k8s gateway') as ReturnType<
      typeof loadGatewayConfig
    >;
    expect(gatewayConfig.httpHost).to.equal('0.0.0.0');
    const declared = (container: Yaml): number[] =>
      container.ports.map((port: Yaml) => port.containerPort).sort((a: number, b: number) => a - b);
    expect(declared(gatewayContainer), 'the gateway container declares the ports it listens on').to.deep.equal(
      listeningPorts(gatewayConfig),
    );

    const distribution = deploymentRunning(DISTRIBUTION_MAIN);
    const [distributionContainer] = distribution.spec.template.spec.containers;
    const distributionConfig = loads(
      'distribution',
      containerEnv(distributionContainer),
      'k8s distribution',
    ) as ReturnType<typeof loadDistributionConfig>;
    expect(distributionConfig.grpcHost).to.equal('0.0.0.0');
    expect(distributionConfig.databaseUrl, 'the distribution service uses MySQL, not the embedded SQLite').to.match(
      /^mysql:/,
    );
    expect(
      declared(distributionContainer),
      'the distribution container declares the ports it listens on',
    ).to.deep.equal(listeningPorts(distributionConfig));
    expect(gatewayConfig.redisUrl, 'the gateways share rate limits through Redis').to.match(/^rediss?:/);

    // The gateways reach every distribution pod through a headless Service.
    const target = grpcTarget(gatewayConfig.distributionAddress);
    const service = named('Service', target.host.split('.')[0]);
    expect(service, `LEADFLOW_DISTRIBUTION_ADDRESS names Service ${target.host}`).to.exist;
    expect(service.spec.clusterIP, 'the distribution Service is headless, so DNS gives every pod').to.equal('None');
    expect(matches(service.spec.selector, distribution.spec.template.metadata.labels)).to.equal(true);
    expect(service.spec.ports.map((port: Yaml) => port.port)).to.include(target.port);

    // Long enough to finish what is in flight: the intake deadline, plus the gateway's own 5 s margin, after preStop.
    const gatewaySpec = gateway.spec.template.spec;
    expect(gatewaySpec.terminationGracePeriodSeconds).to.be.at.least(
      sleepSeconds(gatewayContainer.lifecycle) + gatewayConfig.intakeDeadlineMs / 1000 + 5,
    );
    const distributionSpec = distribution.spec.template.spec;
    expect(distributionSpec.terminationGracePeriodSeconds).to.be.at.least(
      sleepSeconds(distributionContainer.lifecycle) + gatewayConfig.intakeDeadlineMs / 1000,
    );
  });

  it('serves gRPC over mutual TLS, with every certificate file mounted from a Secret key that exists', () => {
    const distribution = deploymentRunning(DISTRIBUTION_MAIN);
    const gateway = deploymentRunning(GATEWAY_MAIN);
    const [distributionContainer] = distribution.spec.template.spec.containers;
    const [gatewayContainer] = gateway.spec.template.spec.containers;
    const server = (
      loads('distribution', containerEnv(distributionContainer), 'k8s distribution') as ReturnType<
        typeof loadDistributionConfig
      >
    ).grpcTransport;
    expect(server.tls?.clientCa, 'the distribution service asks clients for certificates').to.exist;
    expect(server.allowInsecurePlaintext).to.equal(false);
    const client = (
      loads('gateway', containerEnv(gatewayContainer), 'k8s gateway') as ReturnType<typeof loadGatewayConfig>
    ).distributionTransport;
    expect(client?.tls?.identity, 'the gateway presents its client certificate').to.exist;
    const files: [Yaml, Yaml, string, string][] = [
      [distribution, distributionContainer, server.tls!.identity.cert.source, server.tls!.identity.cert.path],
      [distribution, distributionContainer, server.tls!.identity.key.source, server.tls!.identity.key.path],
      [distribution, distributionContainer, server.tls!.clientCa!.source, server.tls!.clientCa!.path],
      [gateway, gatewayContainer, client!.tls!.ca.source, client!.tls!.ca.path],
      [gateway, gatewayContainer, client!.tls!.identity!.cert.source, client!.tls!.identity!.cert.path],
      [gateway, gatewayContainer, client!.tls!.identity!.key.source, client!.tls!.identity!.key.path],
    ];
    // `kubectl exec` runs the CLI in a distribution pod: its certificate is mounted there too.
    const cliEnv = containerEnv(distributionContainer);
    for (const variable of ['LEADFLOW_ADMIN_TLS_CA', 'LEADFLOW_ADMIN_TLS_CERT', 'LEADFLOW_ADMIN_TLS_KEY']) {
      expect(cliEnv[variable], `the distribution container sets ${variable} for the CLI`).to.be.a('string');
      files.push([distribution, distributionContainer, variable, cliEnv[variable]]);
    }
    for (const [deployment, container, source, file] of files) {
      const where = `Deployment ${deployment.metadata.name}: ${source} (${file})`;
      const { secret, key, problem } = mountedSecretKey(deployment, container, file);
      expect(problem, where).to.equal(undefined);
      expect(named('Secret', secret as string), `${where}: Secret ${secret}`).to.exist;
      expect(secretData(named('Secret', secret as string)), `${where}: Secret ${secret}`).to.have.property(
        key as string,
      );
    }
    const gatewayMount = mountedSecretKey(gateway, gatewayContainer, client!.tls!.identity!.cert.path);
    const cliMount = mountedSecretKey(distribution, distributionContainer, cliEnv.LEADFLOW_ADMIN_TLS_CERT);
    expect(cliMount.secret, 'the CLI has its own certificate, not the gateway one').to.not.equal(gatewayMount.secret);
    for (const container of [distributionContainer, gatewayContainer]) {
      expect(
        (container.volumeMounts ?? []).filter((mount: Yaml) => mount.subPath),
        'no subPath: renewed Secrets reach the files',
      ).to.deep.equal([]);
    }
  });

  it('names, in the certificate make-certs.sh makes for it, every host the gateways and the CLI dial', async function () {
    this.timeout(30_000);
    const certs = await makeCertificates();
    try {
      const served = new X509Certificate(readFileSync(certs.distribution.cert));
      const gateway = deploymentRunning(GATEWAY_MAIN);
      const gatewayConfig = loads(
        'gateway',
        containerEnv(gateway.spec.template.spec.containers[0]),
        'k8s gateway',
      ) as ReturnType<typeof loadGatewayConfig>;
      expect(
        served.checkHost(grpcTarget(gatewayConfig.distributionAddress).host),
        'the host the gateways dial',
      ).to.be.a('string');
      // `kubectl exec ... leadflow` in a distribution pod dials the local default address by name.
      expect(served.checkHost('localhost'), 'localhost, for the CLI inside a distribution pod').to.be.a('string');
      expect(read(`${K8S}/grpc-tls.yaml`), 'the template says which names')
        .to.include('leadflow-distribution')
        .and.include('localhost');
    } finally {
      await certs.remove();
    }
  });

  it('probes ports the containers open: HTTP routes the gateway serves, gRPC services the distribution service declares', () => {
    const routes = gatewayRoutes();
    const metricsRoutes = distributionHttpRoutes();
    const services = protoServices();
    for (const deployment of deployments) {
      for (const container of deployment.spec.template.spec.containers) {
        const main = mainOf(container);
        for (const kind of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
          const probe = container[kind];
          const where = `Deployment ${deployment.metadata.name} ${kind}`;
          if (!probe) {
            expect(kind, `${where} is missing`).to.equal('startupProbe');
            continue;
          }
          if (probe.httpGet) {
            const port = containerPort(container, probe.httpGet.port);
            expect(port, `${where}: port ${probe.httpGet.port}`).to.be.a('number');
            if (main === GATEWAY_MAIN) {
              expect([...routes], `${where}: ${probe.httpGet.path} is a gateway route`).to.include(probe.httpGet.path);
            } else {
              expect(main, `${where}: HTTP probes are for the gateway or the distribution service`).to.equal(
                DISTRIBUTION_MAIN,
              );
              const settings = loads('distribution', containerEnv(container), where) as ReturnType<
                typeof loadDistributionConfig
              >;
              expect(port, `${where}: the distribution service answers HTTP on its metrics port only`).to.equal(
                settings.metricsPort,
              );
              expect(
                [...metricsRoutes],
                `${where}: ${probe.httpGet.path} is a route of the metrics listener`,
              ).to.include(probe.httpGet.path);
            }
          } else if (probe.grpc) {
            expect(main, `${where}: gRPC probes are for the distribution service`).to.equal(DISTRIBUTION_MAIN);
            expect(probe.grpc.port, `${where}: gRPC probe ports are numbers`).to.be.a('number');
            expect(containerPort(container, probe.grpc.port), `${where}: port ${probe.grpc.port}`).to.be.a('number');
            const service = probe.grpc.service ?? '';
            if (service !== '') expect([...services], `${where}: service ${service}`).to.include(service);
          } else if (probe.tcpSocket) {
            expect(containerPort(container, probe.tcpSocket.port), `${where}: port ${probe.tcpSocket.port}`).to.be.a(
              'number',
            );
          } else {
            expect.fail(`${where}: httpGet, grpc or tcpSocket`);
          }
        }
      }
    }
  });

  it('has the distribution service answer the gRPC health protocol its probes use', () => {
    const usesGrpcProbes = JSON.stringify(deployments).includes('"grpc":{');
    if (usesGrpcProbes)
      expect(distributionServesGrpcHealth(), 'gRPC probes need grpc.health.v1 on the distribution service').to.equal(
        true,
      );
  });

  it('requests resources and runs non-root on a read-only root filesystem', () => {
    const uid = Number(String(dockerfile.result('runtime').user).split(':')[0]);
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec;
      for (const container of pod.containers) {
        const where = `Deployment ${deployment.metadata.name} container ${container.name}`;
        expect(container.resources?.requests, `${where}: requests`).to.include.keys('cpu', 'memory');
        expect(container.resources?.limits, `${where}: limits`).to.include.keys('memory');
        expect(
          container.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot,
          `${where}: runAsNonRoot`,
        ).to.equal(true);
        expect(
          container.securityContext?.runAsUser ?? pod.securityContext?.runAsUser,
          `${where}: the image's user`,
        ).to.equal(uid);
        expect(container.securityContext?.readOnlyRootFilesystem, `${where}: readOnlyRootFilesystem`).to.equal(true);
        expect(container.securityContext?.allowPrivilegeEscalation, `${where}: allowPrivilegeEscalation`).to.equal(
          false,
        );
      }
    }
  });

  it('has Services that select Deployments and target ports their containers open', () => {
    for (const service of ofKind('Service')) {
      const selected = deployments.filter((deployment) =>
        matches(service.spec.selector, deployment.spec.template.metadata.labels),
      );
      expect(selected, `Service ${service.metadata.name} selects a Deployment`).to.have.length(1);
      const [container] = selected[0].spec.template.spec.containers;
      for (const port of service.spec.ports) {
        expect(
          containerPort(container, port.targetPort ?? port.port),
          `Service ${service.metadata.name} targetPort ${port.targetPort}`,
        ).to.be.a('number');
      }
    }
  });

  it('autoscales and protects existing Deployments', () => {
    for (const hpa of ofKind('HorizontalPodAutoscaler')) {
      const where = `HorizontalPodAutoscaler ${hpa.metadata.name}`;
      expect(hpa.spec.scaleTargetRef.kind).to.equal('Deployment');
      const deployment = named('Deployment', hpa.spec.scaleTargetRef.name);
      expect(deployment, `${where} targets ${hpa.spec.scaleTargetRef.name}`).to.exist;
      expect(hpa.spec.minReplicas).to.be.at.least(2).and.at.most(hpa.spec.maxReplicas);
      expect(
        hpa.spec.metrics.some((metric: Yaml) => metric.resource?.name === 'cpu'),
        `${where}: on CPU`,
      ).to.equal(true);
      for (const container of deployment.spec.template.spec.containers)
        expect(container.resources.requests.cpu, `${where}: CPU utilization needs a CPU request`).to.exist;
    }
    for (const pdb of ofKind('PodDisruptionBudget')) {
      const selected = deployments.filter((deployment) =>
        matches(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
      );
      expect(selected, `PodDisruptionBudget ${pdb.metadata.name} selects a Deployment`).to.have.length(1);
      if (typeof pdb.spec.minAvailable === 'number') {
        expect(pdb.spec.minAvailable, `PodDisruptionBudget ${pdb.metadata.name} still lets a node drain`).to.be.below(
          selected[0].spec.replicas,
        );
      }
    }
    for (const main of [GATEWAY_MAIN, DISTRIBUTION_MAIN]) {
      const deployment = deploymentRunning(main);
      const name = deployment.metadata.name;
      expect(
        ofKind('HorizontalPodAutoscaler').some((hpa) => hpa.spec.scaleTargetRef.name === name),
        `${name} autoscales`,
      ).to.equal(true);
      expect(
        ofKind('PodDisruptionBudget').some((pdb) =>
          matches(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels),
        ),
        `${name} has a disruption budget`,
      ).to.equal(true);
    }
  });

  it('limits who reaches the admin port to pods that exist, on a port they open', () => {
    for (const policy of ofKind('NetworkPolicy')) {
      const [target] = deployments.filter((deployment) =>
        matches(policy.spec.podSelector.matchLabels, deployment.spec.template.metadata.labels),
      );
      expect(target, `NetworkPolicy ${policy.metadata.name} selects a Deployment`).to.exist;
      const [container] = target.spec.template.spec.containers;
      const rules: Yaml[] = policy.spec.ingress ?? [];
      for (const rule of rules) {
        for (const port of rule.ports ?? [])
          expect(
            containerPort(container, port.port),
            `NetworkPolicy ${policy.metadata.name} port ${port.port}`,
          ).to.be.a('number');
      }
      if (mainOf(container) === DISTRIBUTION_MAIN) {
        const gateway = deploymentRunning(GATEWAY_MAIN);
        const grpcPort = (
          loads('distribution', containerEnv(container), 'k8s distribution') as ReturnType<
            typeof loadDistributionConfig
          >
        ).grpcPort;
        const gatewayAllowed = rules.some(
          (rule) =>
            (rule.from ?? []).some(
              (peer: Yaml) =>
                peer.podSelector &&
                !peer.namespaceSelector &&
                matches(peer.podSelector.matchLabels, gateway.spec.template.metadata.labels),
            ) && (rule.ports ?? []).some((port: Yaml) => containerPort(container, port.port) === grpcPort),
        );
        expect(gatewayAllowed, 'the gateways may reach the distribution service on its gRPC port').to.equal(true);
      }
    }
  });
});

// ---- env examples and the README ----------------------------------------------------------------

describe('deploy: env example and README', () => {
  it('lists only settings the code reads in deploy/leadflow.env.example', () => {
    expectReadByCode(envFile('deploy/leadflow.env.example').keys(), 'deploy/leadflow.env.example');
  });

  it('names Dockerfile targets, compose profiles and files that exist', () => {
    const readme = read(README);
    const targets = new Set([...readme.matchAll(/--target[ =]([\w-]+)/g)].map((match) => match[1]));
    for (const target of targets) expect(stageNames, `${README} builds --target ${target}`).to.include(target);
    for (const process of ['gateway', 'distribution'])
      expect([...targets], `${README} shows how to build the ${process} image`).to.include(process);
    const compose: Yaml = yamlDocuments(COMPOSE)[0].value;
    const profiles = new Set(Object.values<Yaml>(compose.services).flatMap((service) => service.profiles ?? []));
    for (const match of readme.matchAll(/--profile[ =]([\w-]+)/g))
      expect([...profiles], `${README} uses --profile ${match[1]}`).to.include(match[1]);
    // Files the user creates from an example (git-ignored) are named but not present.
    const userFiles = new Set(
      read('deploy/compose/.gitignore')
        .split('\n')
        .map((line) => line.trim().replace(/\/$/, ''))
        .filter((line) => line && !line.startsWith('#')),
    );
    // (Not `kubectl exec deploy/NAME`, which names a Deployment.)
    for (const match of readme.matchAll(/(?<![\w./-])(?<!exec (?:-\w+ )?)deploy\/[\w./-]*[\w/]/g)) {
      if (userFiles.has(path.posix.basename(match[0]))) continue;
      expect(exists(match[0]), `${README} mentions ${match[0]}`).to.equal(true);
    }
    for (const match of readme.matchAll(/\b(?:(?:services\/)?[\w-]+\/)?dist\/[\w./-]+\.js\b/g))
      expect(sourceOfCompiled(match[0]).problem, `${README} runs ${match[0]}`).to.equal(undefined);
  });
});
