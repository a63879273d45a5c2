/** The floor processes are configured by the bench only; a missing value is a bench bug. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}
