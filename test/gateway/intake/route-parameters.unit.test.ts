import { MAX_ROUTE_PARAM_LENGTH, overLongParameter } from '@leadflow/gateway/src/intake/route-parameters';
import { expect } from 'chai';

describe('route parameters past the longest matched', () => {
  const long = 'x'.repeat(MAX_ROUTE_PARAM_LENGTH + 1);

  it('takes an over-long key for an unknown key, on the intake and on a lead status', () => {
    expect(overLongParameter(`/api/intake/${long}`)).to.equal('UNAUTHORIZED');
    expect(overLongParameter(`/api/intake/${long}/leads/click-1?x=1`)).to.equal('UNAUTHORIZED');
  });

  it('takes an over-long clickid behind a key of any length for a lead no one has', () => {
    expect(overLongParameter(`/api/intake/lfpk_key/leads/${long}`)).to.equal('NOT_FOUND');
    expect(overLongParameter(`/api/intake/${'k'.repeat(MAX_ROUTE_PARAM_LENGTH)}/leads/${long}`)).to.equal('NOT_FOUND');
  });
});
