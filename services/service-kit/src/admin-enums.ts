import { ApplyAction, BuyerMode, CircuitState, Pricing, RoutingMode } from '@leadflow/proto/leadflow/admin/v1/admin';
import { AttemptKind, AttemptOutcome, LeadStatus } from '@leadflow/proto/leadflow/admin/v1/leads';
import { ReportGrouping } from '@leadflow/proto/leadflow/admin/v1/reports';
import { enumNames } from './proto-enums.js';

/** The admin API's closed sets by their lower-case names, for the service and the CLI alike. */
export const leadStatuses = enumNames<LeadStatus>(LeadStatus, 'LEAD_STATUS_');
export const attemptOutcomes = enumNames<AttemptOutcome>(AttemptOutcome, 'ATTEMPT_OUTCOME_');
export const attemptKinds = enumNames<AttemptKind>(AttemptKind, 'ATTEMPT_KIND_');
export const buyerModes = enumNames<BuyerMode>(BuyerMode, 'BUYER_MODE_');
export const pricings = enumNames<Pricing>(Pricing, 'PRICING_');
export const circuitStates = enumNames<CircuitState>(CircuitState, 'CIRCUIT_STATE_');
export const applyActions = enumNames<ApplyAction>(ApplyAction, 'APPLY_ACTION_');
export const routingModes = enumNames<RoutingMode>(RoutingMode, 'ROUTING_MODE_');
export const reportGroupings = enumNames<ReportGrouping>(ReportGrouping, 'REPORT_GROUPING_');
