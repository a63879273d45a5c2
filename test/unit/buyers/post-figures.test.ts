import { expect } from 'chai';
import {
  HALF_LIFE_POSTS,
  type PostObservation,
  type PostResult,
  resultOf,
  summarizePosts,
  WINDOW_POSTS,
  weightedQuantile,
} from '../../../services/distribution/src/buyers/post-figures.js';

let serial = 0;
function post(result: PostResult, latencyMs = 100, state = 'CA'): PostObservation {
  serial += 1;
  return { leadId: `lead_${serial}`, at: 1_000_000 - serial, latencyMs, result, state };
}

const times = (count: number, make: () => PostObservation) => Array.from({ length: count }, make);

describe("post figures: what a buyer's own posts say of it", () => {
  it('starts a buyer with no posts at an even accept rate and no latency', () => {
    expect(summarizePosts([])).to.deep.equal({
      posts: 0,
      acceptRate: 0.5,
      unansweredRate: 0,
      p50Ms: undefined,
      p90Ms: undefined,
    });
  });

  it('learns the accept rate of answered posts, smoothed while there are few, and leaves unanswered ones out of it', () => {
    const few = summarizePosts([post('accepted'), post('declined'), post('declined')]);
    expect(few.acceptRate).to.be.closeTo(2 / 5, 0.05);
    const pattern: PostResult[] = ['accepted', 'unanswered', 'declined', 'declined', 'declined'];
    const many = summarizePosts(Array.from({ length: 100 }, (_, i) => post(pattern[i % pattern.length]!)));
    expect(many.posts).to.equal(100);
    expect(many.acceptRate).to.be.within(0.15, 0.3);
    expect(many.unansweredRate).to.be.within(0.15, 0.3);
  });

  it('follows a buyer that changed: recent posts weigh most, and only the most recent count', () => {
    const nowAccepting = [
      ...times(HALF_LIFE_POSTS * 2, () => post('accepted')),
      ...times(WINDOW_POSTS, () => post('declined')),
    ];
    const figures = summarizePosts(nowAccepting);
    expect(figures.posts).to.equal(WINDOW_POSTS);
    expect(figures.acceptRate, 'three quarters of the weight is in the newest hundred posts').to.be.above(0.7);
    const older = summarizePosts(nowAccepting.slice(HALF_LIFE_POSTS * 2));
    expect(older.acceptRate).to.be.below(0.02);
  });

  it('takes the latency percentiles by weight, timeouts at the time they took', () => {
    const figures = summarizePosts([
      ...times(8, () => post('declined', 100)),
      post('accepted', 400),
      post('unanswered', 2000),
    ]);
    expect(figures.p50Ms).to.equal(100);
    expect(figures.p90Ms).to.equal(400);
    expect(
      weightedQuantile(
        [
          { value: 1, weight: 1 },
          { value: 5, weight: 3 },
        ],
        0.25,
      ),
    ).to.equal(1);
    expect(
      weightedQuantile(
        [
          { value: 1, weight: 1 },
          { value: 5, weight: 3 },
        ],
        0.26,
      ),
    ).to.equal(5);
    expect(weightedQuantile([], 0.5)).to.equal(undefined);
  });

  it("gives a state its own accept rate, pulled toward the buyer's while the state has few posts", () => {
    const posts = [...times(50, () => post('accepted', 100, 'TX')), ...times(150, () => post('declined', 100, 'CA'))];
    posts.sort((a, b) => (a.leadId < b.leadId ? -1 : 1)); // interleaving does not matter to the test
    const overall = summarizePosts(posts).acceptRate;
    expect(summarizePosts(posts, 'TX').acceptRate).to.be.above(0.6);
    expect(summarizePosts(posts, 'CA').acceptRate).to.be.below(overall);
    expect(summarizePosts(posts, 'NY').acceptRate, "a state never seen: the buyer's rate").to.be.closeTo(overall, 1e-9);
  });

  it('counts a timeout or an unknown outcome as unanswered, an error as a no', () => {
    expect(
      ['accepted', 'rejected', 'error', 'timeout', 'unknown'].map((outcome) => resultOf(outcome as never)),
    ).to.deep.equal(['accepted', 'declined', 'declined', 'unanswered', 'unanswered']);
  });
});
