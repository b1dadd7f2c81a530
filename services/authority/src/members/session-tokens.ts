import { createPrivateKey, createPublicKey } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import type { JWK } from 'jose';

export const SESSION_ISSUER = 'authority';
export const SESSION_AUDIENCE = 'dashboard';

/**
 * Signs member session tokens with an Ed25519 key from configuration. Only the authority holds
 * the private key; api instances verify with the public key (`authority.getSessionKeys`).
 */
export class SessionSigner {
  private readonly privateKey;
  readonly keyId: string;
  private readonly publicJwk: Promise<JWK>;

  constructor(
    privateKeyPem: string,
    /** Lifetime of a session token. */
    private readonly ttlSeconds: number,
  ) {
    this.privateKey = createPrivateKey(privateKeyPem);
    if (this.privateKey.asymmetricKeyType !== 'ed25519') throw new Error('the session signing key must be an Ed25519 private key');
    const publicKey = createPublicKey(this.privateKey);
    this.keyId = publicKey.export({ format: 'der', type: 'spki' }).subarray(-8).toString('hex');
    this.publicJwk = exportJWK(publicKey).then((jwk) => ({ ...jwk, kid: this.keyId, alg: 'EdDSA', use: 'sig' }));
  }

  async sign(member: { id: string; teamId: string; role: string; name: string }): Promise<{ token: string; expiresAt: Date }> {
    const expiresAt = new Date(Date.now() + this.ttlSeconds * 1000);
    // The name is for display as an event's sender; decisions never trust the token's role.
    const token = await new SignJWT({ team_id: member.teamId, role: member.role, name: member.name })
      .setProtectedHeader({ alg: 'EdDSA', kid: this.keyId })
      .setSubject(member.id)
      .setIssuer(SESSION_ISSUER)
      .setAudience(SESSION_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
      .sign(this.privateKey);
    return { token, expiresAt };
  }

  async keySet(): Promise<{ keys: JWK[] }> {
    return { keys: [await this.publicJwk] };
  }
}
