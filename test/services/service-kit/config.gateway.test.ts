import type { AddressInfo } from 'node:net';
import { ConfigError, loadGatewayConfig } from '@leadflow/service-kit/config';
import { expect } from 'chai';
import { testGateway } from '../../support/gateway.js';
import { ScriptedDistribution } from '../../support/scripted-distribution.js';

describe('gateway configuration', () => {
  it('binds to loopback unless told otherwise', () => {
    expect(loadGatewayConfig({}).httpHost).to.equal('127.0.0.1');
    expect(loadGatewayConfig({ LEADFLOW_HTTP_HOST: '0.0.0.0' }).httpHost).to.equal('0.0.0.0');
  });

  describe('slow-client limits', () => {
    it('default to limits that cut a trickled request within 30 s and an idle connection within seconds', async () => {
      const { httpTimeouts } = loadGatewayConfig({});
      expect(httpTimeouts).to.deep.equal({ headersMs: 10_000, requestMs: 20_000, keepAliveMs: 5000 });
      const distribution = new ScriptedDistribution();
      await distribution.start();
      const app = testGateway(distribution.address, { httpTimeouts });
      try {
        await app.listen({ host: '127.0.0.1', port: 0 });
        expect((app.server.address() as AddressInfo).port).to.be.above(0);
        const server = app.server as typeof app.server & { connectionsCheckingInterval: number };
        // What Node enforces, read back from the listening server: nothing may have adjusted them.
        expect(server.headersTimeout).to.equal(10_000);
        expect(server.requestTimeout).to.equal(20_000);
        expect(server.keepAliveTimeout).to.equal(5000);
        expect(server.requestTimeout + server.connectionsCheckingInterval).to.be.below(30_000);
      } finally {
        await app.close();
        distribution.stop();
      }
    });

    it('reads each limit from its variable', () => {
      const { httpTimeouts } = loadGatewayConfig({
        LEADFLOW_HTTP_HEADERS_TIMEOUT_MS: '2000',
        LEADFLOW_HTTP_REQUEST_TIMEOUT_MS: '3000',
        LEADFLOW_HTTP_KEEP_ALIVE_TIMEOUT_MS: '65000',
      });
      expect(httpTimeouts).to.deep.equal({ headersMs: 2000, requestMs: 3000, keepAliveMs: 65_000 });
    });

    it('refuses a request timeout shorter than the headers timeout, and limits that are not whole milliseconds', () => {
      expect(() => loadGatewayConfig({ LEADFLOW_HTTP_HEADERS_TIMEOUT_MS: '30000' })).to.throw(
        ConfigError,
        'LEADFLOW_HTTP_REQUEST_TIMEOUT_MS (20000) must be at least LEADFLOW_HTTP_HEADERS_TIMEOUT_MS (30000)',
      );
      expect(() => loadGatewayConfig({ LEADFLOW_HTTP_REQUEST_TIMEOUT_MS: '0' })).to.throw(
        ConfigError,
        'LEADFLOW_HTTP_REQUEST_TIMEOUT_MS',
      );
      expect(() => loadGatewayConfig({ LEADFLOW_HTTP_KEEP_ALIVE_TIMEOUT_MS: '5s' })).to.throw(
        ConfigError,
        'LEADFLOW_HTTP_KEEP_ALIVE_TIMEOUT_MS',
      );
    });
  });

  describe('client addresses and failed authentications', () => {
    it('trusts no proxy by default, and allows 20 failed authentications a minute per address', () => {
      const config = loadGatewayConfig({});
      expect(config.trustProxy).to.equal(false);
      expect(config.authFailureLimit).to.equal(20);
      expect(loadGatewayConfig({ LEADFLOW_TRUST_PROXY: 'false', LEADFLOW_AUTH_FAILURE_LIMIT: '5' })).to.include({
        trustProxy: false,
        authFailureLimit: 5,
      });
    });

    it('reads trusted proxies as addresses, CIDR ranges and the names proxy-addr knows', () => {
      expect(
        loadGatewayConfig({ LEADFLOW_TRUST_PROXY: '10.0.0.0/8, 192.0.2.10,loopback,fd00::/8,::1' }).trustProxy,
      ).to.deep.equal(['10.0.0.0/8', '192.0.2.10', 'loopback', 'fd00::/8', '::1']);
    });

    it('refuses to trust every proxy, hop counts, and what is not an address', () => {
      for (const value of ['true', '1', '*', 'nginx', '10.0.0.0/33', '10.0.0.1/8/1', 'fd00::/129', '10.0.0.0/8,']) {
        expect(() => loadGatewayConfig({ LEADFLOW_TRUST_PROXY: value }), value).to.throw(
          ConfigError,
          'LEADFLOW_TRUST_PROXY',
        );
      }
      expect(() => loadGatewayConfig({ LEADFLOW_AUTH_FAILURE_LIMIT: '0' })).to.throw(
        ConfigError,
        'LEADFLOW_AUTH_FAILURE_LIMIT',
      );
    });
  });
});
