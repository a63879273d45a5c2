import type { Db } from '../db/database.js';
import type { PiiCipher } from './pii-cipher.js';

export class PiiLifecycle {
  constructor(
    private readonly db: Db,
    private readonly cipher: PiiCipher,
  ) {}

  async purge(_olderThanDays: number): Promise<number> {
    void this.db;
    throw new Error('purge is being built');
  }

  async reencrypt(_batchSize: number): Promise<{ reencrypted: number; activeKeyId: string }> {
    void this.cipher;
    throw new Error('re-encryption is being built');
  }
}
