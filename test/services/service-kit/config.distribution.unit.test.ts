import { ConfigError, loadDistributionConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';

describe('distribution configuration: publisher postbacks', () => {
  it('gives a receiver 5 s to answer and retries an event for a day by default', () => {
    expect(loadDistributionConfig({})).to.include({ postbackTimeoutMs: 5000, postbackRetryHours: 24 });
  });

  it('reads the timeout and the retry horizon from their variables, within their bounds', () => {
    const config = loadDistributionConfig({
      LEADFLOW_POSTBACK_TIMEOUT_MS: '2500',
      LEADFLOW_POSTBACK_RETRY_HOURS: '72',
    });
    expect(config).to.include({ postbackTimeoutMs: 2500, postbackRetryHours: 72 });
    const refused = [
      ['LEADFLOW_POSTBACK_TIMEOUT_MS', '99'],
      ['LEADFLOW_POSTBACK_TIMEOUT_MS', '60001'],
      ['LEADFLOW_POSTBACK_RETRY_HOURS', '0'],
      ['LEADFLOW_POSTBACK_RETRY_HOURS', '721'],
      ['LEADFLOW_POSTBACK_RETRY_HOURS', '1.5'],
    ];
    for (const [name, value] of refused) {
      expect(() => loadDistributionConfig({ [name!]: value }), `${name}=${value}`).to.throw(ConfigError, name);
    }
  });
});
