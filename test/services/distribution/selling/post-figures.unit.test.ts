import {
  HALF_LIFE_POSTS,
  latencyQuantiles,
  overallFigures,
  type PostObservation,
  type PostResult,
  priceBandOf,
  resultOf,
  segmentFigures,
  WINDOW_POSTS,
} from '@leadflow/distribution/src/selling/post-figures';
import { expect } from 'chai';

let serial = 0;
function post(result: PostResult, latencyMs = 100, state = 'CA', priceBand?: number): PostObservation {
  serial += 1;
  return { leadId: `lead_${serial}`, at: 1_000_000 - serial, latencyMs, result, state, priceBand };
}

/** The figures of a segment, as the store gives them: the overall figures, then the segment's accept rate. */
const figuresOf = (posts: readonly PostObservation[], state?: string, priceBand?: number) =>
  segmentFigures(overallFigures(posts), posts, state, priceBand);

const times = (count: number, make: () => PostObservation) => Array.from({ length: count }, make);

describe("post figures: what a buyer's own posts say of it", () => {
  it('starts a buyer with no posts at an even accept rate and no latency', () => {
    expect(figuresOf([])).to.deep.equal({
      posts: 0,
      acceptRate: 0.5,
      unansweredRate: 0,
      silentRate: 0,
      p50Ms: undefined,
      p90Ms: undefined,
      priorAcceptRate: 0.5,
      answeredPosts: 0,
      acceptedPosts: 0,
    });
  });

  it('learns the accept rate of answered posts, smoothed while there are few, and leaves unanswered ones out of it', () => {
    const few = figuresOf([post('accepted'), post('declined'), post('declined')]);
    expect(few.acceptRate).to.be.closeTo(2 / 5, 0.05);
    const pattern: PostResult[] = ['accepted', 'unanswered', 'declined', 'declined', 'declined'];
    const many = figuresOf(Array.from({ length: 100 }, (_, i) => post(pattern[i % pattern.length]!)));
    expect(many.posts).to.equal(100);
    expect(many.acceptRate).to.be.within(0.15, 0.3);
    expect(many.unansweredRate).to.be.within(0.15, 0.3);
  });

  it('tells a buyer that hangs now and then from one whose posts were cut short by the deadline', () => {
    const answered = () => [post('declined', 300), post('accepted', 500)];
    // One post in ten never answered, though given its whole timeout: slower than any answer.
    const hangs = figuresOf(
      Array.from({ length: 10 }, (_, i) => (i === 0 ? [post('unanswered', 2000)] : answered())).flat(),
    );
    expect(hangs.silentRate).to.be.within(0.04, 0.06);
    // Posts cut at 400 ms, when the buyer answers in up to 500: they may have been answered.
    const cut = figuresOf(
      Array.from({ length: 10 }, (_, i) => (i === 0 ? [post('unanswered', 400)] : answered())).flat(),
    );
    expect(cut.silentRate).to.equal(0);
    // A first post that hung does not bar a buyer: its share is pulled toward none.
    expect(figuresOf([post('unanswered', 2000)]).silentRate).to.be.closeTo(1 / 3, 1e-9);
  });

  it('follows a buyer that changed: recent posts weigh most, and only the most recent count', () => {
    const nowAccepting = [
      ...times(HALF_LIFE_POSTS * 2, () => post('accepted')),
      ...times(WINDOW_POSTS, () => post('declined')),
    ];
    const figures = figuresOf(nowAccepting);
    expect(figures.posts).to.equal(WINDOW_POSTS);
    expect(figures.acceptRate, 'three quarters of the weight is in the newest hundred posts').to.be.above(0.7);
    const older = figuresOf(nowAccepting.slice(HALF_LIFE_POSTS * 2));
    expect(older.acceptRate).to.be.below(0.02);
  });

  it('takes the latency percentiles by weight, a post without an answer as longer than it was given', () => {
    const figures = figuresOf([
      ...times(8, () => post('declined', 100)),
      post('accepted', 400),
      post('unanswered', 2000),
    ]);
    expect(figures.p50Ms).to.equal(100);
    expect(figures.p90Ms).to.equal(400);
    // Posts cut short by the deadline at 300 ms were slower than that: they do not make the buyer look fast.
    const cut = figuresOf([...times(6, () => post('unanswered', 300)), ...times(4, () => post('accepted', 900))]);
    expect(cut.p50Ms).to.equal(900);
    expect(cut.p90Ms).to.equal(900);
    const answered = (latencyMs: number, weight = 1) => ({ latencyMs, answered: true, weight });
    const cutAt = (latencyMs: number, weight = 1) => ({ latencyMs, answered: false, weight });
    expect(latencyQuantiles([answered(1), answered(5, 3)], [0.25, 0.26])).to.deep.equal([1, 5]);
    expect(latencyQuantiles([], [0.5])).to.deep.equal([undefined]);
    // Kaplan-Meier: two of four answered by 200; one cut at 300 leaves one running, which answers at 800.
    expect(latencyQuantiles([answered(100), answered(200), cutAt(300), answered(800)], [0.5, 0.6, 0.9])).to.deep.equal([
      200, 800, 800,
    ]);
    // One post in four still running when cut at 1900 ms: the 90th percentile is not known to be shorter.
    expect(latencyQuantiles([answered(100), answered(100), answered(100), cutAt(1900)], [0.5, 0.9])).to.deep.equal([
      100, 1900,
    ]);
    // Nothing answered: the longest time seen.
    expect(latencyQuantiles([cutAt(300), cutAt(500)], [0.5])).to.deep.equal([500]);
  });

  it("gives a state its own accept rate, pulled toward the buyer's while the state has few posts", () => {
    const posts = [...times(50, () => post('accepted', 100, 'TX')), ...times(150, () => post('declined', 100, 'CA'))];
    posts.sort((a, b) => (a.leadId < b.leadId ? -1 : 1)); // interleaving does not matter to the test
    const overall = figuresOf(posts).acceptRate;
    expect(figuresOf(posts, 'TX').acceptRate).to.be.above(0.6);
    expect(figuresOf(posts, 'CA').acceptRate).to.be.below(overall);
    expect(figuresOf(posts, 'NY').acceptRate, "a state never seen: the buyer's rate").to.be.closeTo(overall, 1e-9);
  });

  it("gives a price band its own accept rate within the state, pulled toward the state's", () => {
    const [cheap, dear] = [priceBandOf(900), priceBandOf(12_000)];
    const posts = [
      ...times(60, () => post('accepted', 100, 'TX', cheap)),
      ...times(60, () => post('declined', 100, 'TX', dear)),
      ...times(80, () => post('declined', 100, 'CA', cheap)),
    ];
    posts.sort((a, b) => (a.leadId < b.leadId ? -1 : 1));
    const texas = figuresOf(posts, 'TX').acceptRate;
    expect(figuresOf(posts, 'TX', cheap).acceptRate).to.be.above(texas + 0.2);
    expect(figuresOf(posts, 'TX', dear).acceptRate).to.be.below(texas - 0.2);
    expect(figuresOf(posts, 'CA', cheap).acceptRate, 'the band within its state').to.be.below(
      figuresOf(posts, 'TX', cheap).acceptRate - 0.3,
    );
    expect(figuresOf(posts, 'TX', priceBandOf(3_000)).acceptRate, 'a band never seen').to.be.closeTo(texas, 1e-9);
  });

  it('bands prices under $10, $10-25, $25-50, $50-100 and from $100', () => {
    expect([999, 1_000, 2_499, 2_500, 4_999, 5_000, 9_999, 10_000, 50_000].map(priceBandOf)).to.deep.equal([
      0, 1, 1, 2, 2, 3, 3, 4, 4,
    ]);
    expect([priceBandOf(null), priceBandOf(undefined)]).to.deep.equal([undefined, undefined]);
  });

  it('counts a timeout or an unknown outcome as unanswered, an error as a no', () => {
    expect(
      ['accepted', 'rejected', 'error', 'timeout', 'unknown'].map((outcome) => resultOf(outcome as never)),
    ).to.deep.equal(['accepted', 'declined', 'declined', 'unanswered', 'unanswered']);
  });
});
