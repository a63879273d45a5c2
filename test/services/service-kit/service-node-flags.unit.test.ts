import { SERVICE_NODE_FLAGS, serviceNodeFlags } from '@leadflow/service-kit/service-node-flags';
import { expect } from 'chai';

describe('service node flags', () => {
  it('size the heap of each service in MB, never below 512 MB for the old generation', () => {
    for (const flags of Object.values(SERVICE_NODE_FLAGS)) {
      for (const flag of flags) expect(flag).to.match(/^--max-(semi|old)-space-size=[1-9]\d*$/);
      const oldSpace = flags.find((flag) => flag.startsWith('--max-old-space-size='));
      expect(Number(oldSpace?.split('=')[1])).to.be.at.least(512);
    }
  });

  it('are all given when the operator sets none', () => {
    expect(serviceNodeFlags('gateway', ['--import', 'tsx', '--enable-source-maps'], '')).to.deep.equal(
      SERVICE_NODE_FLAGS.gateway,
    );
    expect(serviceNodeFlags('distribution', [])).to.deep.equal(SERVICE_NODE_FLAGS.distribution);
  });

  it("leave out a flag the operator sets on node's command line, in either spelling", () => {
    expect(serviceNodeFlags('gateway', ['--max-old-space-size=1024'])).to.deep.equal(['--max-semi-space-size=8']);
    expect(serviceNodeFlags('gateway', ['--max_semi_space_size=32'])).to.deep.equal(['--max-old-space-size=512']);
    expect(serviceNodeFlags('distribution', ['--max_old_space_size=2048'])).to.deep.equal(['--max-semi-space-size=8']);
  });

  it('leave out a flag the operator sets in NODE_OPTIONS', () => {
    expect(serviceNodeFlags('gateway', [], '--enable-source-maps  --max-old-space-size=900')).to.deep.equal([
      '--max-semi-space-size=8',
    ]);
    expect(serviceNodeFlags('gateway', [], '--max-semi-space-size=16 --max-old-space-size=900')).to.deep.equal([]);
  });
});
