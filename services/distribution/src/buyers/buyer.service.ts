import type { Logger } from '@leadflow/service-kit/logger';
import type { Db } from '../db/database.js';
import { invalidField, StatusError } from '../errors.js';
import { newId } from '../ids.js';
import { type Buyer, buyerFromStored, InvalidStoredBuyerError, type StoredBuyer } from './buyer.js';
import * as repository from './buyer.repository.js';
import { type EnvironmentValues, serviceValues } from './definition/buyer-values.js';
import { parseBuyerDocument } from './definition/parse-buyers.js';
import { parseTree } from './definition/parse-tree.js';
import { Problems } from './definition/problems.js';
import { NO_TREE_SETTINGS, type TreeSettings } from './tree/tree-settings.js';
import * as treeRepository from './tree/tree-settings.repository.js';

/**
 * How long the active buyer list and the tree's settings are reused between leads: a change reaches
 * every instance within this.
 */
export const ACTIVE_BUYERS_TTL_MS = 1000;

export type ApplyAction = 'created' | 'updated' | 'unchanged';

/** `paused`: the buyer is paused after the apply (see `apply`). */
export interface AppliedBuyer {
  id: string;
  name: string;
  action: ApplyAction;
  paused: boolean;
}

/** `tree`: what the apply did to the tree's settings, when the document sets them. */
export type ApplyResult =
  | { ok: true; buyers: AppliedBuyer[]; tree?: Exclude<ApplyAction, 'created'> }
  | { ok: false; errors: { path: string; message: string }[] };

/** The value of JSON text; undefined when it does not parse. */
function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Replaces the stored tree settings with the document's; left out keys fall back to the environment's. */
async function applyTree(
  db: Db,
  settings: TreeSettings,
  dryRun: boolean,
  now: number,
): Promise<'updated' | 'unchanged'> {
  const json = JSON.stringify(settings);
  if ((await treeRepository.readTreeSettingsJson(db)) === json) return 'unchanged';
  if (!dryRun) await treeRepository.writeTreeSettingsJson(db, json, now);
  return 'updated';
}

function parseDocumentJson(text: string): unknown {
  const value = jsonValue(text);
  if (value === undefined) {
    throw invalidField('document_json', 'is not valid JSON', { message: 'the document is not valid JSON' });
  }
  return value;
}

/**
 * Buyers as stored. Every definition read from the database is checked again with the rules of `buyer
 * apply`; a buyer whose stored definition fails them is left out of selection and of `buyer list` on
 * every instance (logged once per stored version, with the paths and messages, never the values), and
 * `buyer show` names its problems, until a corrected file is applied.
 */
export class BuyerService {
  private activeCache: { buyers: Buyer[]; expiresAt: number } | undefined;
  private treeCache: { settings: TreeSettings; expiresAt: number } | undefined;
  /** The stored tree settings last found invalid, logged once. */
  private invalidTreeJson: string | undefined;
  /** The last check of each buyer's stored definition, redone only when its record changes. */
  private readonly checked = new Map<string, { stored: StoredBuyer; result: Buyer | InvalidStoredBuyerError }>();

  /** `values`: where the references of buyer files resolve; its secrets file is read again at each apply. */
  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    private readonly values: EnvironmentValues = serviceValues(),
  ) {}

  async listActive(): Promise<Buyer[]> {
    const now = Date.now();
    if (!this.activeCache || this.activeCache.expiresAt <= now) {
      const stored = await repository.listActiveBuyers(this.db);
      this.activeCache = { buyers: this.usable(stored), expiresAt: now + ACTIVE_BUYERS_TTL_MS };
    }
    return this.activeCache.buyers;
  }

  /** The tree's settings as the last applied document set them, for selling: read again every TTL. */
  async treeSettings(): Promise<TreeSettings> {
    const now = Date.now();
    if (!this.treeCache || this.treeCache.expiresAt <= now) {
      this.treeCache = { settings: await this.storedTreeSettings(), expiresAt: now + ACTIVE_BUYERS_TTL_MS };
    }
    return this.treeCache.settings;
  }

  /**
   * The tree's settings as stored, checked again with the rules of `buyer apply`: settings that fail them
   * (written by hand, or by a later version) are logged once and not used.
   */
  async storedTreeSettings(): Promise<TreeSettings> {
    const json = await treeRepository.readTreeSettingsJson(this.db);
    const problems = new Problems();
    // Stored text that does not parse reads as a value the rules refuse.
    const settings = parseTree(jsonValue(json), 'tree', problems);
    if (settings) return settings;
    if (this.invalidTreeJson !== json) {
      this.invalidTreeJson = json;
      this.logger.error({ problems: problems.found }, 'stored tree settings are invalid: the defaults are used');
    }
    return NO_TREE_SETTINGS;
  }

  async list(): Promise<Buyer[]> {
    return this.usable(await repository.listBuyers(this.db));
  }

  async get(idOrName: string): Promise<Buyer> {
    const stored = await repository.findBuyer(this.db, idOrName);
    if (!stored) throw new StatusError('not_found', 'no such buyer');
    const result = this.check(stored);
    if (result instanceof InvalidStoredBuyerError) throw new StatusError('failed_precondition', result.message);
    return result;
  }

  /**
   * A buyer's name by id, for logs and metric labels: from the definitions already read when there is
   * one (no query per lead), else from storage; undefined for an id no buyer has.
   */
  async nameOf(buyerId: string): Promise<string | undefined> {
    const known = this.knownName(buyerId);
    if (known !== undefined) return known;
    const stored = await repository.findBuyer(this.db, buyerId);
    return stored?.id === buyerId ? stored.name : undefined;
  }

  /** A buyer's name by id from the definitions this process has read, without a query. */
  knownName(buyerId: string): string | undefined {
    return this.checked.get(buyerId)?.stored.name;
  }

  private usable(stored: StoredBuyer[]): Buyer[] {
    return stored
      .map((buyer) => this.check(buyer))
      .filter((result): result is Buyer => !(result instanceof InvalidStoredBuyerError));
  }

  private check(stored: StoredBuyer): Buyer | InvalidStoredBuyerError {
    const last = this.checked.get(stored.id);
    if (
      last &&
      last.stored.definitionJson === stored.definitionJson &&
      last.stored.active === stored.active &&
      last.stored.updatedAt === stored.updatedAt
    ) {
      return last.result;
    }
    let result: Buyer | InvalidStoredBuyerError;
    try {
      result = buyerFromStored(stored, this.values);
    } catch (error) {
      if (!(error instanceof InvalidStoredBuyerError)) throw error;
      result = error;
      this.logger.error(
        { buyerId: stored.id, problems: error.problems },
        'stored buyer definition is invalid: buyer left out until a corrected file is applied',
      );
    }
    this.checked.set(stored.id, { stored, result });
    return result;
  }

  /**
   * Creates or updates every buyer the document declares, in one transaction;
   * a document with any mistake changes nothing. Pausing is an operator's act that outlives the file: a
   * paused buyer stays paused whatever the document says (`active: false` in it pauses one), and only
   * `setActive` resumes it.
   */
  async apply(documentJson: string, dryRun: boolean): Promise<ApplyResult> {
    this.values.reload();
    const parsed = parseBuyerDocument(parseDocumentJson(documentJson), this.values);
    if ('errors' in parsed) return { ok: false, errors: parsed.errors };
    const now = Date.now();
    const results = await this.db.transaction().execute(async (trx) => {
      const existing = new Map(
        (
          await repository.findBuyersByName(
            trx,
            parsed.buyers.map((buyer) => buyer.name),
          )
        ).map((buyer) => [buyer.name.toLowerCase(), buyer]),
      );
      const applied: AppliedBuyer[] = [];
      for (const definition of parsed.buyers) {
        const stored = existing.get(definition.name.toLowerCase());
        const json = JSON.stringify(definition);
        const active = definition.active && stored?.active !== false;
        const paused = !active;
        if (!stored) {
          const id = newId('buy', now);
          if (!dryRun)
            await repository.insertBuyer(trx, {
              id,
              name: definition.name,
              active,
              definitionJson: json,
              createdAt: now,
              updatedAt: now,
            });
          applied.push({ id, name: definition.name, action: 'created', paused });
        } else if (stored.definitionJson === json && stored.active === active) {
          applied.push({ id: stored.id, name: definition.name, action: 'unchanged', paused });
        } else {
          if (!dryRun) await repository.updateBuyerDefinition(trx, stored.id, definition.name, active, json, now);
          applied.push({ id: stored.id, name: definition.name, action: 'updated', paused });
        }
      }
      const tree = parsed.tree && (await applyTree(trx, parsed.tree, dryRun, now));
      return { buyers: applied, tree };
    });
    this.activeCache = undefined;
    this.treeCache = undefined;
    return { ok: true, buyers: results.buyers, ...(results.tree && { tree: results.tree }) };
  }

  async setActive(idOrName: string, active: boolean): Promise<Buyer> {
    const buyer = await this.get(idOrName);
    await repository.setBuyerActive(this.db, buyer.id, active, Date.now());
    this.activeCache = undefined;
    return this.get(buyer.id);
  }
}
