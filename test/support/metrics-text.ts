/** One sample of a Prometheus text exposition. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(LABEL)].map(([, name, value]) => [name!, value!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sum of the samples named `name` whose labels include `labels`; undefined when none matches. */
export function sampled(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = parseSamples(text).filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
  );
  return matching.length === 0 ? undefined : matching.reduce((sum, sample) => sum + sample.value, 0);
}

export async function scrape(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string; text: string }> {
  const response = await fetch(url, { headers });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}
