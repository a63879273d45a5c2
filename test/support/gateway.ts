import { createHash } from 'node:crypto';
import { buildGateway } from '@leadflow/gateway/src/app';
// The gateway's built declarations do not carry its decorations' types; the module declaring them does.
import type {} from '@leadflow/gateway/src/plugins/metrics';
import { type GatewayConfig, loadGatewayConfig } from '@leadflow/service-kit/config';
import type { Logger } from '@leadflow/service-kit/logger';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';

/** A key of the shape leadflow issues (`lfpk_` + 43 base64url characters), the same for the same name. */
export function testKey(name: string): string {
  return `lfpk_${createHash('sha256').update(name).digest('base64url')}`;
}

/** The defaults of an empty environment, except for what a test needs to differ. */
export function testConfig(distributionAddress: string, overrides: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    ...loadGatewayConfig({}),
    httpHost: '127.0.0.1',
    httpPort: 0,
    distributionAddress,
    intakeDeadlineMs: 2000,
    ...overrides,
  };
}

/** A pino logger that keeps every line it writes, for tests that read the logs. */
export function memoryLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** The gateway against a distribution service, with its own gRPC client and in-process limiter. */
export function testGateway(
  distributionAddress: string,
  overrides: Partial<GatewayConfig> = {},
  logger: Logger = pino({ level: 'silent' }),
): FastifyInstance {
  return buildGateway({ config: testConfig(distributionAddress, overrides), logger });
}

export const VALID_LEAD = {
  price: '5.00',
  loanAmount: '1000',
  ssn: '535221234',
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  dob: '1980-12-10',
  address: '1 Main St',
  city: 'Springfield',
  state: 'IL',
  zip: '62701',
  homePhone: '2175550123',
  cellPhone: '2175550124',
  userIp: '203.0.113.7',
  clickid: 'click-1',
};

export function postLead(
  app: FastifyInstance,
  key: string,
  payload: string | Buffer | object = VALID_LEAD,
  contentType: string | undefined = 'application/json',
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: `/api/intake/${key}`,
    headers: contentType === undefined ? {} : { 'content-type': contentType },
    payload: typeof payload === 'string' || Buffer.isBuffer(payload) ? payload : JSON.stringify(payload),
  });
}
