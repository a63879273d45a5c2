/**
 * The environment of a scenario's processes: the bench's own, minus anything that would point them at
 * other databases, Redis, exporters or secrets, plus the scenario's settings.
 */
export function childEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(DATABASE_URL|REDIS_URL|OTEL_|LEADFLOW_|FLOOR_)/.test(name)) env[name] = value;
  }
  return { ...env, ...settings };
}
