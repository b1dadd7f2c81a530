import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Signing secrets: `whsec_` + 32 random bytes (256 bits) in base64url. Shown once at creation
 * and once at each rotation; stored only encrypted with AES-256-GCM under a key from
 * configuration, so a database copy alone cannot forge signatures.
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function aesKey(keyBase64: string): Buffer {
  const key = Buffer.from(keyBase64, 'base64');
  if (key.length !== 32) throw new Error('a signing secret encryption key must be 32 bytes, base64-encoded');
  return key;
}

/**
 * Seals secrets under the current key (SIGNING_SECRET_ENCRYPTION_KEY) and opens them with it or
 * with a previous one (SIGNING_SECRET_PREVIOUS_KEYS), so the key can change without losing a
 * secret. The sealed text names no key: GCM's tag tells whether a key is the one that sealed it,
 * and the current key is tried first. Kept in the format workers before key changes write and
 * read (`v1.`), so workers of both versions share endpoints during a rolling upgrade.
 */
export class SecretBox {
  private readonly current: Buffer;
  private readonly previous: Buffer[];
  /** The order keys are tried in to open a secret: the current one first. */
  private readonly every: Buffer[];

  /** Keys: 32 bytes, base64 each (checked at start-up with the rest of the configuration). */
  constructor(currentKeyBase64: string, previousKeysBase64: readonly string[] = []) {
    this.current = aesKey(currentKeyBase64);
    this.previous = previousKeysBase64.map(aesKey);
    this.every = [this.current, ...this.previous];
  }

  /** Whether some keys open secrets without sealing them: a key change may have left secrets to seal again. */
  get hasPreviousKeys(): boolean {
    return this.previous.length > 0;
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
  }

  /** The secret, opened with the current key or else a previous one; throws when none opens it. */
  open(stored: string): string {
    const opened = this.openWith(stored, this.every);
    if (opened === undefined) throw new Error('sealed secret unreadable, or opened by no configured key (SIGNING_SECRET_ENCRYPTION_KEY, SIGNING_SECRET_PREVIOUS_KEYS)');
    return opened;
  }

  /** Whether two stored secrets hold the same secret (one may be the other sealed again under a new key). */
  holdSameSecret(stored: string, other: string): boolean {
    if (stored === other) return true;
    const opened = this.openWith(stored, this.every);
    return opened !== undefined && opened === this.openWith(other, this.every);
  }

  /**
   * What a stored secret needs: nothing (`current`: sealed under the current key), to be sealed
   * again (`previous`, with the secret opened), or a key this worker lacks (`unreadable`).
   */
  inspect(stored: string): { sealedWith: 'current' } | { sealedWith: 'previous'; secret: string } | { sealedWith: 'unreadable' } {
    if (this.openWith(stored, [this.current]) !== undefined) return { sealedWith: 'current' };
    const secret = this.openWith(stored, this.previous);
    return secret === undefined ? { sealedWith: 'unreadable' } : { sealedWith: 'previous', secret };
  }

  /** Undefined when none of `keys` opens it, or it is no sealed secret at all. */
  private openWith(stored: string, keys: readonly Buffer[]): string | undefined {
    const [version, iv, tag, sealed] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || !sealed) return undefined;
    for (const key of keys) {
      // The whole 16-byte tag, as sealed: GCM would otherwise accept one cut to as few as 4 bytes.
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
      try {
        decipher.setAuthTag(Buffer.from(tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        // Another key sealed it (the tag does not match): try the next.
      }
    }
    return undefined;
  }
}
