export { startSimulator, type Simulator, type SimulatorOptions } from './simulator.js';
export {
  FAULT_KINDS,
  type DirectPostEndpointConfig,
  type Endpoint,
  type EndpointConfig,
  type EndpointKind,
  type FaultKind,
  type PingEndpointConfig,
  type PostEndpointConfig,
  type ReplyFormat,
  type RequiredAuth,
} from './config.js';
export type { Distribution } from './distributions.js';
export { parseEndpoints, parseSimulatorConfig, SimulatorConfigError, type SimulatorConfig } from './config-validation.js';
export { demoMarketConfigPath, loadSimulatorConfig } from './config-file.js';
export { REASONS } from './decide.js';
export type { EndpointStats, SimulatorStats } from './stats.js';
export {
  PING_MAPPING,
  PING_POST_MAPPING,
  POST_MAPPING,
  simulatorIntegration,
  simulatorReplyParser,
  type SimulatorIntegrationOptions,
} from './integrations.js';
