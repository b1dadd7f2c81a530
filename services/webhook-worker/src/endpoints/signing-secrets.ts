import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Signing secrets: `whsec_` + 32 random bytes (256 bits) in base64url. Shown once at creation
 * and once at each rotation; stored only encrypted with AES-256-GCM under a key from
 * configuration, so a database copy alone cannot forge signatures.
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

export class SecretBox {
  private readonly key: Buffer;

  /** `keyBase64`: 32 bytes, base64 (SIGNING_SECRET_ENCRYPTION_KEY, checked at start-up with the rest of the configuration). */
  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== 32) throw new Error('the signing secret encryption key must be 32 bytes, base64-encoded');
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), sealed.toString('base64')].join('.');
  }

  open(stored: string): string {
    const [version, iv, tag, sealed] = stored.split('.');
    if (version !== 'v1' || !iv || !tag || !sealed) throw new Error('unreadable sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  }
}
