import { ConfigError } from './config.js';

/**
 * A listener that could not start, told as the setting to change: `variable` is the port's environment
 * variable, `address` the host:port tried. Undefined for failures that are not about the address.
 */
export function listenFailure(error: unknown, variable: string, address: string, advice = ''): ConfigError | undefined {
  const text = `${(error as { code?: unknown })?.code ?? ''} ${(error as Error)?.message ?? ''}`;
  if (text.includes('EADDRINUSE')) {
    return new ConfigError(
      `${address} is already in use by another process${advice}: stop that process, or set ${variable} to a free port`,
    );
  }
  if (text.includes('EACCES')) {
    return new ConfigError(
      `not allowed to listen on ${address} (ports below 1024 need privileges): set ${variable} to a port above 1023`,
    );
  }
  if (text.includes('EADDRNOTAVAIL')) {
    return new ConfigError(
      `cannot listen on ${address}: the host is not an address of this machine; check the host setting beside ${variable}`,
    );
  }
  return undefined;
}
