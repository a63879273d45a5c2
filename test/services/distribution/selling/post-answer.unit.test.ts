import type { BuyerCallResult } from '@leadflow/distribution/src/buyers/integration/buyer-call';
import { postVerdict } from '@leadflow/distribution/src/selling/post-answer';
import { expect } from 'chai';

function result(outcome: BuyerCallResult['outcome'], httpStatus: number | null, error?: string): BuyerCallResult {
  return {
    outcome,
    httpStatus,
    latencyMs: 5,
    reply: { outcome: outcome === 'timeout' ? 'error' : outcome, ...(error ? { error } : {}) },
  };
}

describe('postVerdict: what a post result means for the sale protocol', () => {
  it('is accepted only for a sale, rejected for a no, unknown for an acceptance that is no sale (the buyer holds the lead)', () => {
    expect(postVerdict(result('accepted', 200), true, 'unconfirmed')).to.deep.equal({
      state: 'accepted',
      byTimeoutPolicy: false,
    });
    expect(postVerdict(result('accepted', 200), false, 'unconfirmed')).to.deep.equal({
      state: 'unknown',
      byTimeoutPolicy: false,
    });
    expect(postVerdict(result('accepted', 200), false, 'decline')).to.deep.equal({
      state: 'unknown',
      byTimeoutPolicy: false,
    });
    expect(postVerdict(result('rejected', 200), false, 'unconfirmed')).to.deep.equal({
      state: 'rejected',
      byTimeoutPolicy: false,
    });
  });

  it('is failed for an error answer and for a post that never left', () => {
    for (const [status, error] of [
      [500, undefined],
      [200, 'unparseable'],
      [null, 'connection_refused'],
      [null, 'not_allowed'],
      [null, 'tls'],
      [null, 'deadline_passed'],
      [null, 'no_test_url'],
    ] as const) {
      expect(postVerdict(result('error', status, error), false, 'unconfirmed'), `${status} ${error}`).to.deep.equal({
        state: 'failed',
        byTimeoutPolicy: false,
      });
    }
  });

  it('is unknown when the request may have reached the buyer and no whole answer came back', () => {
    expect(postVerdict(result('timeout', null, 'timeout'), false, 'unconfirmed').state).to.equal('unknown');
    for (const error of ['reset', 'too_large', 'other']) {
      expect(postVerdict(result('error', null, error), false, 'unconfirmed').state, error).to.equal('unknown');
    }
  });

  it("is a decline by the buyer's timeout policy when its contract says so, and only then", () => {
    expect(postVerdict(result('timeout', null, 'timeout'), false, 'decline')).to.deep.equal({
      state: 'failed',
      byTimeoutPolicy: true,
    });
    expect(postVerdict(result('error', null, 'reset'), false, 'decline')).to.deep.equal({
      state: 'failed',
      byTimeoutPolicy: true,
    });
    expect(postVerdict(result('accepted', 200), true, 'decline').state).to.equal('accepted');
  });
});
