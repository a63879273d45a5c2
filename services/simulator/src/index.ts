export {
  type DirectPostEndpointConfig,
  type Endpoint,
  type EndpointConfig,
  type EndpointKind,
  FAULT_KINDS,
  type FaultKind,
  type PingEndpointConfig,
  type PostEndpointConfig,
  type ReplyFormat,
  type RequiredAuth,
} from './config.js';
export { demoMarketConfigPath, loadSimulatorConfig } from './config-file.js';
export {
  parseEndpoints,
  parseSimulatorConfig,
  type SimulatorConfig,
  SimulatorConfigError,
} from './config-validation.js';
export { REASONS } from './decide.js';
export type { Distribution } from './distributions.js';
export {
  PING_MAPPING,
  PING_POST_MAPPING,
  POST_MAPPING,
  type SimulatorIntegrationOptions,
  simulatorIntegration,
  simulatorReplyParser,
} from './integrations.js';
export { type BestSale, type BestSaleTerms, bestSale } from './lead-draws.js';
export { plannedSale } from './planned-sale.js';
export { type Simulator, type SimulatorOptions, startSimulator } from './simulator.js';
export type { EndpointStats, SimulatorStats } from './stats.js';
