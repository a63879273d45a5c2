import { logVerbosity, setLogger, setLogVerbosity } from '@grpc/grpc-js';
import type { Logger } from './logger.js';

/** grpc-js's line for a metadata entry it cannot hold, which goes on with the entry's value. */
const DROPPED_METADATA_ENTRY = /^Failed to add metadata entry ([^:\s]*):/;

function logGrpcLine(logger: Logger, level: 'error' | 'info', message: unknown): void {
  const text = String(message);
  const header = DROPPED_METADATA_ENTRY.exec(text)?.[1];
  if (header !== undefined) {
    logger.warn({ source: 'grpc-js', header }, 'grpc-js dropped a metadata entry whose value metadata cannot hold');
    return;
  }
  logger[level]({ source: 'grpc-js' }, text);
}

/**
 * Writes grpc-js's own log lines through the process's logger. By default grpc-js writes them to stderr
 * as plain text, a header it cannot hold (a tab in `authorization: Bearer\t<token>`) with its value,
 * before any caller is checked: here such a line names the header only. Its debug traces (GRPC_TRACE)
 * quote whole metadata, so nothing below INFO is written, whatever GRPC_VERBOSITY says.
 */
export function routeGrpcLogs(logger: Logger): void {
  setLogVerbosity(logVerbosity.INFO);
  setLogger({
    error: (message: unknown) => logGrpcLine(logger, 'error', message),
    info: (message: unknown) => logGrpcLine(logger, 'info', message),
  });
}
