import { MAX_REENCRYPT_BATCH, rotateLocalPiiKey, SECRETS_FILE } from '@leadflow/distribution';
import { dataDir, PII_RETENTION_DAYS } from '@leadflow/service-kit/config';
import type { CommandArgs } from '../args.js';
import { CliFailure, UsageError } from '../errors.js';
import type { Command, CommandOutput } from './command.js';

type Env = Record<string, string | undefined>;

/**
 * A command that works on this machine's files instead of calling the service:
 * it is given the environment, not a connection.
 */
export interface LocalCommand<Input> extends Omit<Command<Input>, 'run'> {
  runLocally(input: Input, env: Env): Promise<CommandOutput>;
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

function retentionDays(args: CommandArgs): number {
  const { min, max } = PII_RETENTION_DAYS;
  const raw = args.requiredString('older-than-days');
  const days = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(days >= min && days <= max))
    throw new UsageError(`--older-than-days must be a whole number from ${min} to ${max}`);
  return days;
}

const purge: Command<{ olderThanDays: number }> = {
  group: 'pii',
  name: 'purge',
  synopsis: '--older-than-days N',
  summary: 'purge the sensitive fields of leads older than N days, keeping what duplicate checks need',
  details: [
    `--older-than-days N   leads created more than N days ago (${PII_RETENTION_DAYS.min} to ${PII_RETENTION_DAYS.max})`,
    'SSN, date of birth, bank and driver license numbers are deleted; their keyed hashes stay, so duplicate',
    'checks still recognise the person, and outcomes, sales and the ledger are untouched. `leadflow lead show`',
    'shows the purged fields as [purged]. Running it again purges only the leads that have aged since.',
    'LEADFLOW_PII_RETENTION_DAYS on the distribution service purges the same way every hour.',
    'With --json, prints {"purged": N}.',
  ],
  options: { 'older-than-days': { type: 'string' } },
  positionals: [],
  parse: (args) => ({ olderThanDays: retentionDays(args) }),
  async run(calls, input) {
    const purged = await calls.purgeSensitiveData(input.olderThanDays);
    return {
      json: { purged },
      text: `Purged the sensitive fields of ${plural(purged, 'lead')} created more than ${plural(input.olderThanDays, 'day')} ago.\n`,
    };
  },
};

const reencrypt: Command<{ batchSize: number }> = {
  group: 'pii',
  name: 'reencrypt',
  synopsis: '[--batch-size N]',
  summary: "re-encrypt every stored lead's sensitive fields with the active PII key",
  details: [
    `--batch-size N   leads per transaction, 1 to ${MAX_REENCRYPT_BATCH} (default 500)`,
    "The active key is the first of the service's key ring. Safe while leads arrive, and resumable: a run",
    'stopped halfway leaves every lead readable, and the next run re-encrypts only what is left.',
    'Rotating the key in production: put a new key first in LEADFLOW_PII_KEYS on every distribution instance',
    'and restart them all, run this until it reports 0, then drop the old key and restart again.',
    'On the embedded default: leadflow pii rotate-key, restart the service, then run this.',
    'With --json, prints {"reencrypted": N, "activeKeyId": "..."}.',
  ],
  options: { 'batch-size': { type: 'string' } },
  positionals: [],
  // Zero asks the service for its default.
  parse: (args) => ({ batchSize: args.wholeNumber('batch-size', 1, MAX_REENCRYPT_BATCH) ?? 0 }),
  async run(calls, input) {
    const { reencrypted, activeKeyId } = await calls.reencryptSensitiveData(input.batchSize);
    return {
      json: { reencrypted, activeKeyId },
      text: `Re-encrypted ${plural(reencrypted, 'lead')}: every stored lead is now under key ${activeKeyId}.\n`,
    };
  },
};

const rotateKey: LocalCommand<void> = {
  group: 'pii',
  name: 'rotate-key',
  synopsis: '',
  summary: `embedded default: add a new PII key, first in the data directory's ${SECRETS_FILE}`,
  details: [
    `Works on LEADFLOW_DATA_DIR/${SECRETS_FILE} (default .leadflow) on this machine, not through the service:`,
    '--address does not apply. The older keys stay after the new one, so every stored lead stays readable.',
    'Then restart the service (it encrypts new leads with the new key from then on) and run',
    '`leadflow pii reencrypt` to move the stored leads to it. Keys are never printed.',
    'Refused when LEADFLOW_PII_KEYS is set: those keys live in the environment, and rotate there.',
    'With --json, prints {"file": ..., "activeKeyId": ..., "keyIds": [...]}.',
  ],
  options: {},
  positionals: [],
  parse: () => undefined,
  async runLocally(_input, env) {
    if (env.LEADFLOW_PII_KEYS) {
      throw new CliFailure(
        'LEADFLOW_PII_KEYS is set: the PII keys live in the environment, not in a data directory. Put a new key ' +
          'first in LEADFLOW_PII_KEYS on every instance, restart them, then run leadflow pii reencrypt',
      );
    }
    const directory = dataDir(env);
    const rotated = await rotateLocalPiiKey(directory).catch((error: unknown) => {
      // A JSON syntax error quotes the text around the fault, which may be a key.
      const reason = error instanceof SyntaxError ? 'it is not valid JSON' : (error as Error).message;
      throw new CliFailure(`cannot rotate the PII key in ${directory}: ${reason}`);
    });
    if (!rotated) {
      throw new CliFailure(
        `no ${SECRETS_FILE} in ${directory}: run where the service keeps its data (set LEADFLOW_DATA_DIR)`,
      );
    }
    return {
      json: rotated,
      text:
        `Added PII key ${rotated.activeKeyId} first in ${rotated.file} (key ring: ${rotated.keyIds.join(', ')}).\n` +
        `Restart the distribution service so that it encrypts with ${rotated.activeKeyId}, ` +
        'then run `leadflow pii reencrypt` to re-encrypt the stored leads.\n',
    };
  },
};

export const piiCommands = [purge, reencrypt, rotateKey];
