import { checkDestination, isLoopbackName } from '../buyers/integration/destination.js';
import { type Db, isDuplicateKeyError } from '../db/database.js';
import { invalidField } from '../errors.js';
import type { PublisherService } from '../publishers/publisher.service.js';
import type { PiiCipher } from '../security/pii-cipher.js';
import * as repository from './postback.repository.js';
import { generateSigningSecret } from './publisher-event.js';

export interface PostbackSettings {
  publisherId: string;
  url: string;
  local: boolean;
  signingSecret: string;
}

/** The operator's side of publishers' postbacks: the URL, the signing secret, and how deliveries went. */
export class PublisherPostbacks {
  constructor(
    private readonly db: Db,
    private readonly publishers: PublisherService,
    private readonly cipher: PiiCipher,
  ) {}

  /** An empty URL removes it: no more events are written (those written are still delivered, or fail). */
  async set(publisherId: string, url: string, local: boolean): Promise<PostbackSettings> {
    if (url !== '' && url.length > 2048) throw invalidField('url', 'must be at most 2048 characters');
    if (url !== '') {
      const destination = checkDestination(url, local);
      // As for a buyer: localhost is this host whatever DNS says, so only a local receiver may name it.
      if ('refused' in destination || (!local && isLoopbackName(new URL(url).hostname))) {
        const refusal = 'refused' in destination ? destination.refused : 'not_allowed';
        throw invalidField(
          'url',
          refusal === 'invalid_url'
            ? 'must be an absolute http(s) URL'
            : 'must be https on a public address, without credentials (http://, private addresses and localhost need local)',
        );
      }
    }
    await this.settingsOf(publisherId);
    await repository.updatePostback(this.db, publisherId, { url, local }, Date.now());
    return this.settingsOf(publisherId);
  }

  /** The settings, with a signing secret generated the first time they are asked for. */
  async get(publisherId: string): Promise<PostbackSettings> {
    return this.settingsOf(publisherId);
  }

  async rotateSecret(publisherId: string): Promise<PostbackSettings> {
    await this.settingsOf(publisherId);
    const signingSecret = this.cipher.encrypt(generateSigningSecret());
    await repository.updatePostback(this.db, publisherId, { signingSecret }, Date.now());
    return this.settingsOf(publisherId);
  }

  /** The publisher's `limit` most recent events. */
  async deliveries(publisherId: string, limit: number): Promise<repository.StoredEvent[]> {
    await this.publishers.get(publisherId);
    return repository.listEvents(this.db, publisherId, limit);
  }

  private async settingsOf(publisherId: string): Promise<PostbackSettings> {
    let stored = await repository.findPostback(this.db, publisherId);
    if (!stored) {
      await this.publishers.get(publisherId);
      stored = { publisherId, url: '', local: false, signingSecret: this.cipher.encrypt(generateSigningSecret()) };
      // Two first asks at once: the second insert fails on the key, and the first one's secret stands.
      await repository.insertPostback(this.db, stored, Date.now()).catch((error: unknown) => {
        if (!isDuplicateKeyError(error)) throw error;
      });
      stored = (await repository.findPostback(this.db, publisherId)) ?? stored;
    }
    return { ...stored, signingSecret: this.cipher.decrypt(stored.signingSecret) };
  }
}
