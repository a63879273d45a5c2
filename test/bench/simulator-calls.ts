import type { SimulatorStats } from '@leadflow/simulator';

/** How many pings and posts the simulators at urls have answered so far, whatever the answer. */
export async function buyerCallsSoFar(urls: readonly string[]): Promise<number> {
  const counts = await Promise.all(
    urls.map(async (url) => {
      const response = await fetch(`${url}/_simulator/stats`);
      if (!response.ok) throw new Error(`simulator stats at ${url}: ${response.status}`);
      const stats = (await response.json()) as SimulatorStats;
      return Object.values(stats.endpoints).reduce((sum, endpoint) => sum + endpoint.pings + endpoint.posts, 0);
    }),
  );
  return counts.reduce((sum, count) => sum + count, 0);
}
