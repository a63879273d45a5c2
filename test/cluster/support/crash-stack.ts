import { freePort, tcpAccepts } from '../../support/ports.js';
import { type CliRun, runLeadflow } from '../../support/run-leadflow.js';
import { productionSecretsEnv } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait-until.js';
import { Admin } from './admin.js';
import { type CountingBuyer, startCountingBuyer } from './counting-buyer.js';
import { type InspectedDatabase, OwnMariaDb } from './mariadb.js';
import {
  type ChildHandle,
  cleanUp,
  DISTRIBUTION_ENTRY,
  type GatewayProcess,
  startGatewayProcess,
  startNodeProcess,
  tempDir,
} from './processes.js';
import { inspectSqlite } from './sqlite.js';

export type Engine = 'sqlite' | 'mariadb';

export interface CrashStackSettings {
  /** LEADFLOW_SELL_DEADLINE_MS of the distribution service. */
  sellDeadlineMs: number;
  /** LEADFLOW_INTAKE_DEADLINE_MS of the gateway. */
  intakeDeadlineMs: number;
  /** LEADFLOW_RECONCILE_INTERVAL_MS: how often stale and unconfirmed leads are swept. */
  reconcileIntervalMs: number;
}

/**
 * One gateway and one distribution service as real processes, over embedded SQLite or a MariaDB
 * server of the stack's own (which it may kill), with a counting buyer. The distribution service
 * can be killed and started again, with other settings, on the same port and the same data: the
 * gateway's address stays valid across restarts.
 */
export class CrashStack {
  readonly secrets = productionSecretsEnv();
  mariadb: OwnMariaDb | undefined;
  database!: InspectedDatabase;
  buyer!: CountingBuyer;
  gateway: GatewayProcess | undefined;
  admin!: Admin;
  /** The distribution process now running (or the last one, dead). */
  distribution: ChildHandle | undefined;
  /** Every distribution process started, in order, for the failure output. */
  readonly distributions: ChildHandle[] = [];
  private dataDir: Awaited<ReturnType<typeof tempDir>> | undefined;
  private port = 0;

  constructor(
    readonly engine: Engine,
    readonly settings: CrashStackSettings,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** For a failure's output: the last distribution processes (the one running and the ones just before), the gateway, MariaDB. */
  handles(): ChildHandle[] {
    return [
      ...this.distributions.slice(-3),
      ...(this.gateway ? [this.gateway.handle] : []),
      ...(this.mariadb?.logs.slice(-1) ?? []),
    ];
  }

  async start(): Promise<void> {
    this.dataDir = await tempDir('lf-crash-');
    if (this.engine === 'mariadb') {
      this.mariadb = new OwnMariaDb();
      await this.mariadb.install();
      await this.mariadb.start();
      this.database = await this.mariadb.createDatabase('leadflow');
    } else {
      this.database = inspectSqlite(this.dataDir.path);
    }
    this.buyer = await startCountingBuyer();
    this.port = await freePort();
    const first = await this.launch('distribution', {});
    if (!(await first.listening)) throw new Error(`the distribution service did not start:\n${first.handle.tail()}`);
    this.gateway = await startGatewayProcess('gateway', this.address, this.gatewayEnv());
    this.admin = new Admin(this.address, this.secrets.LEADFLOW_ADMIN_TOKEN!);
  }

  gatewayEnv(overrides: Record<string, string> = {}): Record<string, string> {
    return {
      LEADFLOW_LOG_LEVEL: 'info',
      REDIS_URL: '',
      LEADFLOW_INTAKE_DEADLINE_MS: String(this.settings.intakeDeadlineMs),
      ...overrides,
    };
  }

  /**
   * Starts a distribution process on the stack's port with `env` on top of the stack's own. `listening`
   * resolves true once its port accepts connections, false if it died first (a crash point a
   * recovering lead reached while it started).
   */
  async launch(
    name: string,
    env: Record<string, string>,
  ): Promise<{ handle: ChildHandle; listening: Promise<boolean> }> {
    if (this.distribution?.running) throw new Error(`${this.distribution.name} still runs`);
    const handle = startNodeProcess(name, DISTRIBUTION_ENTRY, {
      ...this.secrets,
      LEADFLOW_GRPC_HOST: '127.0.0.1',
      LEADFLOW_GRPC_PORT: String(this.port),
      LEADFLOW_METRICS_PORT: '0',
      LEADFLOW_DATA_DIR: this.dataDir!.path,
      ...(this.mariadb ? { DATABASE_URL: this.database.url } : {}),
      LEADFLOW_LOG_LEVEL: 'info',
      LEADFLOW_SELL_DEADLINE_MS: String(this.settings.sellDeadlineMs),
      LEADFLOW_RECONCILE_INTERVAL_MS: String(this.settings.reconcileIntervalMs),
      ...env,
    });
    this.distribution = handle;
    this.distributions.push(handle);
    let listening = false;
    const portAnswers = async () => {
      listening = await tcpAccepts(this.port);
      return listening;
    };
    const ready = waitUntil(`${name} gRPC port`, async () => !handle.running || (await portAnswers()), 60_000, 25).then(
      () => listening && handle.running,
    );
    return { handle, listening: ready };
  }

  /** A sample without labels from the running distribution service's /metrics; undefined when it has none. */
  async metric(name: string): Promise<number | undefined> {
    const listening = this.distribution?.logLines().find((line) => line.msg === 'distribution service listening');
    if (!listening) throw new Error('the distribution service has not said where it listens');
    const text = await (
      await fetch(`http://127.0.0.1:${String(listening.metricsPort)}/metrics`, { signal: AbortSignal.timeout(5000) })
    ).text();
    const sample = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
    return sample ? Number(sample[1]) : undefined;
  }

  /** `leadflow ARGV` against the running distribution service, as an operator runs it. */
  cli(argv: string[]): Promise<CliRun> {
    return runLeadflow(argv, {
      LEADFLOW_ADMIN_ADDRESS: this.address,
      LEADFLOW_ADMIN_TOKEN: this.secrets.LEADFLOW_ADMIN_TOKEN!,
    });
  }

  async stop(): Promise<void> {
    this.admin?.close();
    // A process stopped at a crash point takes no SIGTERM: let it go on first.
    for (const handle of this.distributions) handle.signal('SIGCONT');
    await cleanUp([
      () => this.gateway?.handle.stop(),
      ...this.distributions.map((handle) => () => handle.stop(5000)),
      () => this.buyer?.close(),
      () => this.database?.close(),
      () => this.mariadb?.destroy(),
      () => this.dataDir?.remove(),
    ]);
  }
}
