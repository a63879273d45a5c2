import { leadFieldPath } from '@leadflow/core/lead-field-paths';
import { LEAD_FIELDS, type LeadField } from '@leadflow/core/lead-fields';
import { type FieldViolation, StatusError } from '../errors.js';
import { NOT_A_STRING_MESSAGE, REQUIRED_MESSAGE } from '../leads/validation.js';

/** ErrorInfo reasons of a refused lead. */
export const INVALID_LEAD = 'INVALID_LEAD';
export const CLICKID_REUSED = 'CLICKID_REUSED';

const KNOWN_FIELDS: ReadonlySet<string> = new Set(LEAD_FIELDS);

function violationReason(message: string): string {
  if (message === REQUIRED_MESSAGE) return 'FIELD_REQUIRED';
  if (message === NOT_A_STRING_MESSAGE) return 'FIELD_NOT_A_STRING';
  return 'FIELD_INVALID';
}

function violations(errors: Record<string, string>, reason?: string): FieldViolation[] {
  return Object.entries(errors).map(([field, description]) => ({
    field: KNOWN_FIELDS.has(field) ? leadFieldPath(field as LeadField) : field,
    description,
    reason: reason ?? violationReason(description),
  }));
}

/**
 * A lead the service refuses, as the AIP-193 status a direct caller expects: INVALID_ARGUMENT with
 * a violation per field, or ALREADY_EXISTS when its clickid names an earlier lead with another body.
 */
export function invalidLeadError(errors: Record<string, string>, clickidReused: boolean): StatusError {
  if (clickidReused) {
    return new StatusError('already_exists', 'the clickid was already used for a different lead', {
      reason: CLICKID_REUSED,
      violations: violations(errors, CLICKID_REUSED),
    });
  }
  return new StatusError('invalid_argument', 'the lead is invalid: see the field violations', {
    reason: INVALID_LEAD,
    violations: violations(errors),
  });
}
