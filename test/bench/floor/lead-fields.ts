import { Lead } from '../../../proto/generated/leadflow/distribution/v1/distribution.js';

/** The 37 lead fields by JSON name, taken from the generated message so they cannot drift from the proto. */
export const LEAD_FIELDS = Object.keys(Lead.fromPartial({})) as (keyof Lead)[];
