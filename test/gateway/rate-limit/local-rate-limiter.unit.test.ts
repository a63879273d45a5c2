import { LocalRateLimiter } from '@leadflow/gateway/src/rate-limit/local-rate-limiter';
import { expect } from 'chai';
import fc from 'fast-check';

const SECOND = 1000;

function fakeClock(): { now: () => number; set: (ms: number) => void } {
  let current = 0;
  return { now: () => current, set: (ms) => (current = ms) };
}

async function consumeMany(limiter: LocalRateLimiter, bucket: string, limit: number, times: number) {
  const decisions = [];
  for (let i = 0; i < times; i += 1) decisions.push(await limiter.consume(bucket, limit));
  return decisions;
}

function allowedCount(decisions: Array<{ allowed: boolean }>): number {
  return decisions.filter((decision) => decision.allowed).length;
}

describe('LocalRateLimiter', () => {
  let clock: ReturnType<typeof fakeClock>;
  let limiter: LocalRateLimiter;

  beforeEach(() => {
    clock = fakeClock();
    limiter = new LocalRateLimiter({ now: clock.now });
  });

  it('allows exactly the limit in a window and denies the next with the wait for the oldest', async () => {
    const decisions = await consumeMany(limiter, 'publisher-1', 60, 60);
    expect(decisions.map((decision) => decision.remaining)).to.deep.equal([...Array(60).keys()].reverse());
    expect(decisions.every((decision) => decision.allowed)).to.equal(true);
    expect(decisions[0]).to.deep.equal({ allowed: true, limit: 60, remaining: 59, resetSeconds: 0, windowSeconds: 60 });
    expect(decisions[59]!.resetSeconds, 'the last slot taken: t says when one frees').to.equal(60);

    clock.set(25.5 * SECOND);
    expect(await limiter.consume('publisher-1', 60)).to.deep.equal({
      allowed: false,
      limit: 60,
      remaining: 0,
      resetSeconds: 35,
      windowSeconds: 60,
    });
    clock.set(60 * SECOND - 1);
    expect(await limiter.consume('publisher-1', 60)).to.include({ allowed: false, resetSeconds: 1 });
  });

  it('allows again once the oldest request has left the window', async () => {
    await consumeMany(limiter, 'publisher-1', 3, 1);
    clock.set(10 * SECOND);
    await consumeMany(limiter, 'publisher-1', 3, 2);
    clock.set(60 * SECOND);
    expect(await limiter.consume('publisher-1', 3)).to.include({ allowed: true, remaining: 0, resetSeconds: 10 });
    expect(await limiter.consume('publisher-1', 3)).to.include({ allowed: false, resetSeconds: 10 });
  });

  it('rolls: a burst at 59 s still counts at 61 s, unlike a fixed window that would allow 120', async () => {
    clock.set(59 * SECOND);
    expect(allowedCount(await consumeMany(limiter, 'publisher-1', 60, 60))).to.equal(60);
    clock.set(61 * SECOND);
    const afterBoundary = await consumeMany(limiter, 'publisher-1', 60, 60);
    expect(allowedCount(afterBoundary)).to.equal(0);
    expect(afterBoundary[0]!.resetSeconds).to.equal(58);
  });

  it('frees exactly the slots of the requests that left the window', async () => {
    await consumeMany(limiter, 'publisher-1', 60, 30);
    clock.set(59 * SECOND);
    await consumeMany(limiter, 'publisher-1', 60, 30);
    clock.set(61 * SECOND);
    const decisions = await consumeMany(limiter, 'publisher-1', 60, 31);
    expect(allowedCount(decisions)).to.equal(30);
    expect(decisions[30]).to.include({ allowed: false, resetSeconds: 58 });
  });

  it('does not count denied requests', async () => {
    await consumeMany(limiter, 'publisher-1', 5, 5);
    clock.set(30 * SECOND);
    expect(allowedCount(await consumeMany(limiter, 'publisher-1', 5, 100))).to.equal(0);
    clock.set(60 * SECOND);
    expect(allowedCount(await consumeMany(limiter, 'publisher-1', 5, 6))).to.equal(5);
  });

  it('keeps buckets independent', async () => {
    await consumeMany(limiter, 'publisher-1', 2, 2);
    expect(await limiter.consume('publisher-1', 2)).to.include({ allowed: false });
    expect(await limiter.consume('publisher-2', 2)).to.include({ allowed: true, remaining: 1 });
  });

  it('applies a lowered limit to what is already counted', async () => {
    for (let second = 0; second < 10; second += 1) {
      clock.set(second * SECOND);
      await limiter.consume('publisher-1', 10);
    }
    clock.set(10 * SECOND);
    // Ten counted, limit now 5: room comes when the sixth oldest (sent at 5 s) leaves at 65 s.
    expect(await limiter.consume('publisher-1', 5)).to.deep.include({ allowed: false, remaining: 0, resetSeconds: 55 });
    clock.set(65 * SECOND);
    expect(await limiter.consume('publisher-1', 5)).to.include({ allowed: true, remaining: 0 });
  });

  it('evicts buckets whose requests have all left the window', async () => {
    for (let i = 0; i < 10_000; i += 1) await limiter.consume(`key-${i}`, 60);
    clock.set(30 * SECOND);
    await limiter.consume('recent', 60);
    expect(limiter.bucketCount).to.equal(10_001);

    clock.set(60 * SECOND);
    await limiter.consume('another', 60);
    expect(limiter.bucketCount, 'the 10 000 idle buckets are gone').to.equal(2);

    clock.set(120 * SECOND);
    await limiter.consume('recent', 60);
    expect(limiter.bucketCount).to.equal(1);
  });

  it('keeps a busy bucket while idle ones around it are evicted', async () => {
    await limiter.consume('idle', 1);
    for (let second = 0; second < 120; second += 1) {
      clock.set(second * SECOND);
      await limiter.consume('busy', 100);
    }
    expect(limiter.bucketCount).to.equal(1);
    expect(await limiter.consume('busy', 100)).to.include({ remaining: 100 - 61 });
  });

  it('holds at most maxBuckets buckets inside one window, forgetting the one that counted least recently', async () => {
    const bounded = new LocalRateLimiter({ now: clock.now, maxBuckets: 1000 });
    await bounded.consume('publisher', 2);
    for (let i = 0; i < 5000; i += 1) {
      clock.set(i);
      await bounded.consume(`address-${i}`, 20);
      if (i % 100 === 0) await bounded.consume('publisher', 1_000_000);
    }
    expect(bounded.bucketCount).to.equal(1000);
    expect(await bounded.consume('address-4999', 2), 'a recent bucket keeps its count').to.include({ remaining: 0 });
    expect(await bounded.consume('address-0', 20), 'the oldest was forgotten').to.include({ remaining: 19 });
    expect(await bounded.consume('publisher', 1_000_000), 'a busy bucket stays').to.include({
      remaining: 1_000_000 - 52,
    });
  });

  it('rejects a limit that is not a positive integer', async () => {
    for (const limit of [0, -1, 1.5, Number.NaN]) {
      await limiter.consume('publisher-1', limit).then(
        () => expect.fail(`limit ${limit} accepted`),
        (error: unknown) => expect(error).to.be.instanceOf(RangeError),
      );
    }
  });

  it('matches a naive rolling-window count on random traffic', async () => {
    const step = fc.record({
      advanceMs: fc.integer({ min: 0, max: 15_000 }),
      bucket: fc.constantFrom('a', 'b', 'c'),
      limit: fc.integer({ min: 1, max: 12 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 300 }), async (steps) => {
        const model = new Map<string, number[]>();
        let now = 0;
        const subject = new LocalRateLimiter({ windowSeconds: 60, now: () => now });
        for (const { advanceMs, bucket, limit } of steps) {
          now += advanceMs;
          const inWindow = (model.get(bucket) ?? []).filter((at) => at > now - 60 * SECOND);
          const allowed = inWindow.length < limit;
          if (allowed) inWindow.push(now);
          model.set(bucket, inWindow);
          const decision = await subject.consume(bucket, limit);
          expect(decision.allowed).to.equal(allowed);
          expect(decision.remaining).to.equal(Math.max(0, limit - inWindow.length));
          if (decision.remaining === 0) {
            const freesRoom = inWindow[inWindow.length - limit]!;
            expect(decision.resetSeconds).to.equal(Math.max(1, Math.ceil((freesRoom + 60 * SECOND - now) / SECOND)));
          }
        }
      }),
    );
  });
});
