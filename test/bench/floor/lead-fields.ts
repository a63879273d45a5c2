import { Lead } from '@leadflow/proto/leadflow/distribution/v1/distribution';

/** The 37 lead fields by JSON name, taken from the generated message so they cannot drift from the proto. */
export const LEAD_FIELDS = Object.keys(Lead.fromPartial({})) as (keyof Lead)[];
