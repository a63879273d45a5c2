import { newId } from '@leadflow/distribution/src/ids';
import { expect } from 'chai';

describe('newId', () => {
  it('is the prefix and a 26-character ULID', () => {
    expect(newId('lead')).to.match(/^lead_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('sorts in creation order, also within one millisecond', () => {
    const ids = Array.from({ length: 1000 }, () => newId('att', 1_795_000_000_000));
    expect([...ids].sort()).to.deep.equal(ids);
    expect(new Set(ids).size).to.equal(1000);
    const later = newId('att', 1_795_000_000_001);
    expect(later > ids.at(-1)!).to.equal(true);
  });
});
