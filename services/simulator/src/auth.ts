import type { RequiredAuth } from './config.js';

/** The Authorization header a client must send to pass `requireAuth`. */
function expectedAuthorization(auth: RequiredAuth): string {
  return auth.type === 'bearer'
    ? `Bearer ${auth.token}`
    : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
}

export function isAuthorized(header: string | undefined, auth: RequiredAuth): boolean {
  return header === expectedAuthorization(auth);
}

export function authChallenge(auth: RequiredAuth): string {
  return auth.type === 'bearer' ? 'Bearer realm="simulator"' : 'Basic realm="simulator"';
}
