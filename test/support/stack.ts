import { buildGateway } from '@leadflow/gateway/src/app';
import { loadGatewayConfig } from '@leadflow/service-kit/config';
import type { Logger } from '@leadflow/service-kit/logger';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { startTestDistribution, type TestDistribution } from './distribution.js';
import type { TestDatabase } from './test-database.js';

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, read by each test in its own shape
type JsonBody = any;

/** The whole intake path in this process: a distribution service on a real port and a gateway listening on another. */
export interface TestStack {
  distribution: TestDistribution;
  gateway: FastifyInstance;
  baseUrl: string;
  post(
    key: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; headers: Headers; body: JsonBody }>;
  close(): Promise<void>;
}

export async function startTestStack(
  database: TestDatabase,
  options: {
    gatewayEnv?: Record<string, string>;
    gatewayLogger?: Logger;
    distributionEnv?: Record<string, string>;
    distributionLogger?: Logger;
  } = {},
): Promise<TestStack> {
  const distribution = await startTestDistribution(database, {
    env: options.distributionEnv,
    logger: options.distributionLogger,
  });
  const config = loadGatewayConfig({
    LEADFLOW_HTTP_PORT: '0',
    LEADFLOW_HTTP_HOST: '127.0.0.1',
    LEADFLOW_DISTRIBUTION_ADDRESS: distribution.address,
    LEADFLOW_LOG_LEVEL: 'silent',
    ...options.gatewayEnv,
  });
  const gateway = buildGateway({ config, logger: options.gatewayLogger ?? pino({ level: 'silent' }) });
  const baseUrl = await gateway.listen({ host: config.httpHost, port: config.httpPort });
  return {
    distribution,
    gateway,
    baseUrl,
    async post(key, body, headers = { 'content-type': 'application/json' }) {
      const response = await fetch(`${baseUrl}/api/intake/${key}`, {
        method: 'POST',
        headers,
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
    },
    async close() {
      await gateway.close();
      await distribution.close();
    },
  };
}
