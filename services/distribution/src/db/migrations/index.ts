import type { Migration } from 'kysely';
import * as initial from './2026_11_22_0001_initial.js';

/** Every migration in order; names are frozen once released. */
export const migrations: Record<string, Migration> = {
  '2026_11_22_0001_initial': initial,
};
