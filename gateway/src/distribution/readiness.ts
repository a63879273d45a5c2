/**
 * Whether the distribution service answers, asked at most once per `cacheMs`
 * however often the orchestrator probes; concurrent probes share one call.
 */
export class ReadinessProbe {
  private last: { at: number; ready: Promise<boolean> } | undefined;

  constructor(
    private readonly check: () => Promise<unknown>,
    private readonly cacheMs = 1000,
  ) {}

  isReady(now = Date.now()): Promise<boolean> {
    if (this.last && now - this.last.at < this.cacheMs) return this.last.ready;
    const ready = this.check().then(
      () => true,
      () => false,
    );
    this.last = { at: now, ready };
    return ready;
  }
}
