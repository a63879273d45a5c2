import { hashKey, PublisherKeys } from '@leadflow/gateway/src/keys/publisher-keys';
import type { ResolvePublisherKeyResponse } from '@leadflow/proto/leadflow/distribution/v1/distribution';
import { type Context, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { expect } from 'chai';

function fakeService(answers: Record<string, ResolvePublisherKeyResponse>) {
  const calls: string[] = [];
  let failing = false;
  const resolve = async (key: string): Promise<ResolvePublisherKeyResponse> => {
    calls.push(key);
    if (failing) throw new Error('unreachable');
    return answers[key] ?? { valid: false, publisherId: '', rateLimitPerMinute: 0 };
  };
  return { calls, resolve, fail: (value: boolean) => (failing = value) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PublisherKeys', () => {
  const live = { valid: true, publisherId: 'pub-1', rateLimitPerMinute: 90 };

  it('names keys by their SHA-256', () => {
    expect(hashKey('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('caches live and unknown keys, and shares a lookup in flight', async () => {
    const service = fakeService({ live });
    const keys = new PublisherKeys(service.resolve);
    const [a, b] = await Promise.all([
      keys.lookup('live', hashKey('live'), ROOT_CONTEXT),
      keys.lookup('live', hashKey('live'), ROOT_CONTEXT),
    ]);
    expect(a).to.deep.equal({ id: 'pub-1', rateLimitPerMinute: 90 });
    expect(b).to.equal(a);
    expect(await keys.lookup('nope', hashKey('nope'), ROOT_CONTEXT)).to.equal(null);
    expect(await keys.lookup('nope', hashKey('nope'), ROOT_CONTEXT)).to.equal(null);
    expect(service.calls).to.deep.equal(['live', 'nope']);
  });

  it('uses a live answer older than the TTL once more while it asks again, then the new answer', async () => {
    const answers: Record<string, ResolvePublisherKeyResponse> = { live };
    const service = fakeService(answers);
    const keys = new PublisherKeys(service.resolve, { ttlMs: 20 });
    expect(await keys.lookup('live', hashKey('live'), ROOT_CONTEXT)).to.not.equal(null);
    delete answers.live;
    await sleep(30);
    const [stale, alongside] = await Promise.all([
      keys.lookup('live', hashKey('live'), ROOT_CONTEXT),
      keys.lookup('live', hashKey('live'), ROOT_CONTEXT),
    ]);
    expect(stale).to.deep.equal({ id: 'pub-1', rateLimitPerMinute: 90 });
    expect(alongside).to.equal(stale);
    expect(service.calls, 'asked again once').to.deep.equal(['live', 'live']);
    expect(await keys.lookup('live', hashKey('live'), ROOT_CONTEXT), 'the revocation').to.equal(null);
  });

  it("asks again outside the request's trace, since the request does not wait for it", async () => {
    const parents: Context[] = [];
    const keys = new PublisherKeys(
      async (_key, parent) => {
        parents.push(parent);
        return live;
      },
      { ttlMs: 20 },
    );
    const request = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      traceFlags: 1,
    });
    await keys.lookup('live', hashKey('live'), request);
    await sleep(30);
    await keys.lookup('live', hashKey('live'), request);
    expect(parents.map((parent) => trace.getSpanContext(parent)?.traceId)).to.deep.equal([
      '0af7651916cd43dd8448eb211c80319c',
      undefined,
    ]);
  });

  it("never uses an unknown key's answer past the TTL, so that a new key works at once", async () => {
    const answers: Record<string, ResolvePublisherKeyResponse> = {};
    const service = fakeService(answers);
    const keys = new PublisherKeys(service.resolve, { ttlMs: 20 });
    expect(await keys.lookup('new', hashKey('new'), ROOT_CONTEXT)).to.equal(null);
    answers.new = live;
    await sleep(30);
    expect(keys.known(hashKey('new'))).to.equal(undefined);
    expect(await keys.lookup('new', hashKey('new'), ROOT_CONTEXT)).to.deep.equal({
      id: 'pub-1',
      rateLimitPerMinute: 90,
    });
  });

  it('uses a live answer for at most maxStaleMs while the service cannot answer', async () => {
    const service = fakeService({ live });
    const keys = new PublisherKeys(service.resolve, { ttlMs: 20, maxStaleMs: 300 });
    expect(await keys.lookup('live', hashKey('live'), ROOT_CONTEXT)).to.not.equal(null);
    service.fail(true);
    await sleep(30);
    expect(await keys.lookup('live', hashKey('live'), ROOT_CONTEXT)).to.not.equal(null);
    await sleep(300);
    let failure: unknown;
    await keys.lookup('live', hashKey('live'), ROOT_CONTEXT).catch((error: unknown) => (failure = error));
    expect(failure).to.be.an('error');
    expect(service.calls).to.have.length(3);
  });

  it('does not cache a failed lookup', async () => {
    const service = fakeService({ live });
    const keys = new PublisherKeys(service.resolve);
    service.fail(true);
    let failure: unknown;
    await keys.lookup('live', hashKey('live'), ROOT_CONTEXT).catch((error: unknown) => (failure = error));
    expect(failure).to.be.ok;
    service.fail(false);
    expect(await keys.lookup('live', hashKey('live'), ROOT_CONTEXT)).to.not.equal(null);
  });

  it('holds at most maxEntries keys', async () => {
    const service = fakeService({});
    const keys = new PublisherKeys(service.resolve, { maxEntries: 2 });
    for (const key of ['a', 'b', 'c', 'a']) await keys.lookup(key, hashKey(key), ROOT_CONTEXT);
    expect(service.calls).to.deep.equal(['a', 'b', 'c', 'a']);
  });
});
