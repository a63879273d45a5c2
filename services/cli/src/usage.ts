import { SECRETS_FILE } from '@leadflow/distribution';
import { DEFAULT_GRPC_PORT } from '@leadflow/service-kit/config';
import type { Command } from './commands/command.js';

/** What the usage texts show of a command. */
type CommandHelp = Pick<Command<unknown>, 'group' | 'name' | 'synopsis' | 'summary' | 'details'>;

const COMMON_SYNOPSIS = '[--json] [--address HOST:PORT]';

const COMMON_OPTIONS = `Options of every command:
  --json                print one JSON document on stdout, for scripts
  --address HOST:PORT   the admin gRPC service (default: LEADFLOW_ADMIN_ADDRESS,
                        else 127.0.0.1:LEADFLOW_GRPC_PORT, port ${DEFAULT_GRPC_PORT} unless set)
  --tls-ca FILE         the CA that issued the service's certificate: talk TLS
                        (default: LEADFLOW_ADMIN_TLS_CA; plaintext only to a loopback address)
  --tls-cert FILE, --tls-key FILE
                        this client's certificate and key, when the service asks for one
                        (default: LEADFLOW_ADMIN_TLS_CERT, LEADFLOW_ADMIN_TLS_KEY)
  --help, -h            show a command's usage
`;

const TOKEN_NOTE = `The admin token is LEADFLOW_ADMIN_TOKEN, else the one a local service generated into
LEADFLOW_DATA_DIR/${SECRETS_FILE} (default .leadflow, relative to the current directory).
`;

function commandList(commands: CommandHelp[]): string {
  return commands
    .map(
      (command) =>
        `  leadflow ${[command.group, command.name, command.synopsis].filter(Boolean).join(' ')}\n      ${command.summary}\n`,
    )
    .join('');
}

export function programUsage(commands: CommandHelp[]): string {
  return (
    'Usage: leadflow COMMAND [ARGUMENTS] [--json] [--address HOST:PORT]\n\n' +
    "Manages leadflow's publishers, their keys and buyers, shows leads and purges or re-encrypts their sensitive\n" +
    'fields, through its admin gRPC service.\n\n' +
    `Commands:\n${commandList(commands)}  leadflow help [COMMAND]\n      show this help, or a command's\n\n` +
    `${COMMON_OPTIONS}\n${TOKEN_NOTE}`
  );
}

export function groupUsage(group: string, commands: CommandHelp[]): string {
  return `Usage: leadflow ${group} COMMAND [ARGUMENTS] ${COMMON_SYNOPSIS}\n\nCommands:\n${commandList(commands)}\n${COMMON_OPTIONS}`;
}

export function commandUsage(command: CommandHelp): string {
  const synopsis = [command.group, command.name, command.synopsis, COMMON_SYNOPSIS].filter(Boolean).join(' ');
  const details = command.details.map((line) => `  ${line}\n`).join('');
  return `Usage: leadflow ${synopsis}\n\n${command.summary[0].toUpperCase()}${command.summary.slice(1)}.\n\n${details}\n${COMMON_OPTIONS}`;
}
