import {
  FIRST_RETRY_DELAY_MS,
  MAX_RETRY_DELAY_MS,
  nextAttemptAt,
} from '@leadflow/distribution/src/postbacks/retry-schedule';
import { expect } from 'chai';

describe('postback retry schedule', () => {
  const created = 1_000_000;
  const day = 24 * 60 * 60_000;
  const noJitter = () => 0;

  it('doubles the wait after each failed try, up to the maximum', () => {
    const waits = [1, 2, 3, 4, 12, 40].map(
      (attempts) => nextAttemptAt(created, attempts, created, day, noJitter)! - created,
    );
    expect(waits).to.deep.equal([
      FIRST_RETRY_DELAY_MS,
      2 * FIRST_RETRY_DELAY_MS,
      4 * FIRST_RETRY_DELAY_MS,
      8 * FIRST_RETRY_DELAY_MS,
      MAX_RETRY_DELAY_MS,
      MAX_RETRY_DELAY_MS,
    ]);
  });

  it('adds at most a fifth of jitter', () => {
    expect(nextAttemptAt(created, 1, created, day, () => 0.999_999)! - created).to.equal(1.2 * FIRST_RETRY_DELAY_MS);
  });

  it('gives up when the next try would come past the retry horizon after the event was written', () => {
    for (const horizon of [day, 3 * day]) {
      const late = created + horizon - MAX_RETRY_DELAY_MS / 2;
      expect(nextAttemptAt(created, 30, late, horizon, noJitter)).to.equal(undefined);
      expect(nextAttemptAt(created, 30, late - MAX_RETRY_DELAY_MS, horizon, noJitter)).to.be.a('number');
    }
    expect(nextAttemptAt(created, 30, created + day, 3 * day, noJitter), 'a day in, three to go').to.be.a('number');
  });
});
