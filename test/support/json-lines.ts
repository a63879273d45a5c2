/**
 * Each JSON object a process wrote on one of its streams (its output chunks, as RunningProcess keeps
 * them), one per line; a line that is not one fails, naming the stream.
 */
export function jsonLines(chunks: string[], stream: string): Record<string, unknown>[] {
  return chunks
    .join('')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`${stream} has a line that is not a JSON object: ${line}`);
      }
    });
}
