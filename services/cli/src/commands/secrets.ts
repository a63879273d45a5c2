import { generateSecrets } from '@leadflow/distribution';
import type { LocalCommand } from './pii.js';

const generate: LocalCommand<void> = {
  group: 'secrets',
  name: 'generate',
  synopsis: '',
  summary: 'print a new admin token, PII key and HMAC key, as environment lines for a production deployment',
  details: [
    'Works on this machine alone: nothing is stored and no service is called (--address does not apply).',
    'Prints LEADFLOW_ADMIN_TOKEN, LEADFLOW_PII_KEYS and LEADFLOW_HMAC_KEY lines, ready for an env file or a',
    'secret store. Generate them once per deployment: every distribution service must get the same values,',
    'and the PII and HMAC keys must be kept (with the database backups) for as long as its leads: without',
    'them, stored leads cannot be read. With --json, prints the three as one JSON object.',
  ],
  options: {},
  positionals: [],
  parse: () => undefined,
  async runLocally() {
    const secrets = generateSecrets();
    const lines = {
      LEADFLOW_ADMIN_TOKEN: secrets.adminToken,
      LEADFLOW_PII_KEYS: secrets.piiKeys,
      LEADFLOW_HMAC_KEY: secrets.hmacKey,
    };
    return {
      json: lines,
      text:
        '# Give every distribution service these same values; keep the keys with the database backups.\n' +
        Object.entries(lines)
          .map(([name, value]) => `${name}=${value}\n`)
          .join(''),
    };
  },
};

export const secretsCommands = [generate];
