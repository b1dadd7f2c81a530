import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Signing secrets: `whsec_` + 32 random bytes (256 bits) in base64url. Shown once at creation
 * and once at each rotation; stored only encrypted with AES-256-GCM under a key from
 * configuration, so a database copy alone cannot forge signatures.
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** The additional data a secret is sealed with: its endpoint. */
const boundTo = (endpointId: string) => Buffer.from(`webhook-endpoint:${endpointId}`, 'utf8');

function aesKey(keyBase64: string): Buffer {
  const key = Buffer.from(keyBase64, 'base64');
  if (key.length !== 32) throw new Error('a signing secret encryption key must be 32 bytes, base64-encoded');
  return key;
}

/**
 * Seals secrets under the current key (SIGNING_SECRET_ENCRYPTION_KEY) and opens them with it or
 * with a previous one (SIGNING_SECRET_PREVIOUS_KEYS), so the key can change without losing a
 * secret. The sealed text names no key: GCM's tag tells whether a key is the one that sealed it,
 * and the current key is tried first.
 *
 * A secret is sealed for its endpoint (`v2.`: the endpoint id is GCM's additional data), so a
 * sealed secret copied into another endpoint's row opens nowhere: whoever can write the table but
 * holds no key cannot have one endpoint's deliveries signed with another's secret. Secrets sealed
 * before (`v1.`, bound to nothing) still open, and are sealed again for their endpoint at start-up.
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

  /** Seals `secret` for endpoint `endpointId` (without one, in the unbound `v1.` format, which only tests still write). */
  seal(secret: string, endpointId?: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    if (endpointId !== undefined) cipher.setAAD(boundTo(endpointId));
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [endpointId === undefined ? 'v1' : 'v2', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
  }

  /** The secret of endpoint `endpointId`, opened with the current key or else a previous one; throws when none opens it for that endpoint. */
  open(stored: string, endpointId?: string): string {
    const opened = this.openWith(stored, this.every, endpointId);
    if (opened === undefined) throw new Error('sealed secret unreadable, or opened by no configured key (SIGNING_SECRET_ENCRYPTION_KEY, SIGNING_SECRET_PREVIOUS_KEYS)');
    return opened;
  }

  /** Whether two stored secrets of an endpoint hold the same secret (one may be the other sealed again under a new key). */
  holdSameSecret(stored: string, other: string, endpointId?: string): boolean {
    if (stored === other) return true;
    const opened = this.openWith(stored, this.every, endpointId);
    return opened !== undefined && opened === this.openWith(other, this.every, endpointId);
  }

  /**
   * What a stored secret needs: nothing (`current`: sealed under the current key), to be sealed
   * again (`previous`, with the secret opened), or a key this worker lacks (`unreadable`).
   */
  inspect(stored: string, endpointId?: string): { sealedWith: 'current' } | { sealedWith: 'previous'; secret: string } | { sealedWith: 'unreadable' } {
    const unbound = endpointId !== undefined && stored.startsWith('v1.');
    if (!unbound && this.openWith(stored, [this.current], endpointId) !== undefined) return { sealedWith: 'current' };
    // Sealed for no endpoint yet, under the current key: sealed again like one a previous key sealed.
    const secret = this.openWith(stored, unbound ? this.every : this.previous, endpointId);
    return secret === undefined ? { sealedWith: 'unreadable' } : { sealedWith: 'previous', secret };
  }

  /** Undefined when none of `keys` opens it for `endpointId`, or it is no sealed secret at all. */
  private openWith(stored: string, keys: readonly Buffer[], endpointId?: string): string | undefined {
    const [version, iv, tag, sealed] = stored.split('.');
    if (!(version === 'v1' || (version === 'v2' && endpointId !== undefined)) || !iv || !tag || !sealed) return undefined;
    for (const key of keys) {
      // The whole 16-byte tag, as sealed: GCM would otherwise accept one cut to as few as 4 bytes.
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'), { authTagLength: 16 });
      if (version === 'v2') decipher.setAAD(boundTo(endpointId!));
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
