import type { Migration } from 'kysely';
import type { KeyRing } from '../../security/key-ring.js';
import * as initial from './2026_11_22_0001_initial.js';
import * as reportIndexes from './2026_11_22_0002_report_indexes.js';
import * as piiLifecycle from './2026_11_22_0003_pii_lifecycle.js';
import * as buyerPersonHolds from './2026_11_22_0004_buyer_person_holds.js';
import * as buyerCapHolds from './2026_11_22_0005_buyer_cap_holds.js';
import * as leadPosts from './2026_11_23_0001_lead_posts.js';
import * as keyChecks from './2026_11_23_0130_key_checks.js';
import { encryptPersonalFields } from './2026_11_23_0131_encrypt_personal_fields.js';
import * as leadLookupIndexes from './2026_11_23_1600_lead_lookup_indexes.js';
import * as salesBuyerIndex from './2026_11_23_1600_sales_buyer_index.js';
import * as treeSettings from './2026_11_26_0001_tree_settings.js';
import * as leadReturns from './2026_11_28_0001_lead_returns.js';
import * as publisherPostbacks from './2026_11_28_0002_publisher_postbacks.js';
import * as binaryIdentifiers from './2026_11_28_0003_binary_identifiers.js';

/** Every migration in order; names are frozen once released. Data migrations need the deployment's keys. */
export const migrations = (ring: KeyRing): Record<string, Migration> => ({
  '2026_11_22_0001_initial': initial,
  '2026_11_22_0002_report_indexes': reportIndexes,
  '2026_11_22_0003_pii_lifecycle': piiLifecycle,
  '2026_11_22_0004_buyer_person_holds': buyerPersonHolds,
  '2026_11_22_0005_buyer_cap_holds': buyerCapHolds,
  '2026_11_23_0001_lead_posts': leadPosts,
  '2026_11_23_0130_key_checks': keyChecks,
  '2026_11_23_0131_encrypt_personal_fields': encryptPersonalFields(ring),
  '2026_11_23_1600_lead_lookup_indexes': leadLookupIndexes,
  '2026_11_23_1600_sales_buyer_index': salesBuyerIndex,
  '2026_11_26_0001_tree_settings': treeSettings,
  '2026_11_28_0001_lead_returns': leadReturns,
  '2026_11_28_0002_publisher_postbacks': publisherPostbacks,
  '2026_11_28_0003_binary_identifiers': binaryIdentifiers,
});
