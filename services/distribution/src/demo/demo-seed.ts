import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as Yaml from 'yaml';
import type { BuyerService } from '../buyers/buyer.service.js';
import { OWNER_ONLY, restrictToOwner } from '../db/data-files.js';
import { lazyModule } from '../lazy-module.js';
import type { PublisherService } from '../publishers/publisher.service.js';

const yaml = lazyModule<typeof Yaml>('yaml');

export const DEMO_KEY_FILE = 'demo-key.txt';
export const DEMO_PUBLISHER_NAME = 'Demo publisher';

/** The YAML stays beside this module's source (src/demo/); the compiled module runs from dist/demo/. */
function demoBuyersPath(): string {
  return fileURLToPath(new URL('../../src/demo/demo-buyers.yaml', import.meta.url));
}

/**
 * On the embedded default's first start: a demo publisher (its key written to
 * the data directory, readable by the owner only) and the demo buyers, played
 * by the buyer simulator at `simulatorUrl`, so that a newcomer's first lead goes
 * through real HTTP buyers.
 */
export async function seedDemo(
  dataDir: string,
  simulatorUrl: string,
  publishers: PublisherService,
  buyers: BuyerService,
): Promise<string | undefined> {
  if ((await publishers.list()).length > 0) return undefined;
  const document = yaml().parse(
    (await readFile(demoBuyersPath(), 'utf8')).replaceAll('SIMULATOR_URL', simulatorUrl.replace(/\/$/, '')),
  );
  const applied = await buyers.apply(JSON.stringify(document), false);
  if (!applied.ok)
    throw new Error(`demo buyers: ${applied.errors.map((error) => `${error.path}: ${error.message}`).join('; ')}`);
  const { key } = await publishers.create({ name: DEMO_PUBLISHER_NAME });
  const file = path.join(dataDir, DEMO_KEY_FILE);
  await writeFile(file, `${key}\n`, { mode: OWNER_ONLY });
  restrictToOwner(file); // a file left by an earlier start keeps its mode through writeFile
  return key;
}
