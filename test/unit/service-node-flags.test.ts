import { expect } from 'chai';
import { SERVICE_NODE_FLAGS, serviceNodeFlags } from '../../services/common/service-node-flags.js';

const semiSpace = SERVICE_NODE_FLAGS.find((flag) => flag.startsWith('--max-semi-space-size='))!;
const oldSpace = SERVICE_NODE_FLAGS.find((flag) => flag.startsWith('--max-old-space-size='))!;

describe('service node flags', () => {
  it('size the young and the old generation, in MB', () => {
    expect(SERVICE_NODE_FLAGS).to.deep.equal([semiSpace, oldSpace]);
    for (const flag of SERVICE_NODE_FLAGS) expect(flag).to.match(/=[1-9]\d*$/);
  });

  it('are all given when the operator sets none', () => {
    expect(serviceNodeFlags(['--import', 'tsx', '--enable-source-maps'], '')).to.deep.equal(SERVICE_NODE_FLAGS);
    expect(serviceNodeFlags([])).to.deep.equal(SERVICE_NODE_FLAGS);
  });

  it("leave out a flag the operator sets on node's command line, in either spelling", () => {
    expect(serviceNodeFlags(['--max-old-space-size=1024'])).to.deep.equal([semiSpace]);
    expect(serviceNodeFlags(['--max_semi_space_size=32'])).to.deep.equal([oldSpace]);
  });

  it('leave out a flag the operator sets in NODE_OPTIONS', () => {
    expect(serviceNodeFlags([], '--enable-source-maps  --max-old-space-size=512')).to.deep.equal([semiSpace]);
    expect(serviceNodeFlags([], '--max-semi-space-size=16 --max-old-space-size=512')).to.deep.equal([]);
  });
});
