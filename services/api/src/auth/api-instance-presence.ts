import { randomUUID } from 'node:crypto';
import type { Logger } from '@feedback/logging';
import { RpcNoServiceError } from '@feedback/messaging';
import type { RpcClient } from '@feedback/messaging';

/**
 * This api instance's lease at the authority. Every `intervalMs` it registers, saying it may
 * serve keys from its cache for `cacheTtlMs`; the authority then waits for this instance's
 * acknowledgement on every key change until that lease ends. The cache may be trusted until
 * `cacheTtlMs` after the last registration the authority confirmed: after that, the authority
 * may no longer be waiting for us. So a broker outage lets cached keys serve for up to one
 * cache lifetime, and no longer.
 */
export class ApiInstancePresence {
  readonly instanceId = randomUUID();
  private confirmedAt = Number.NEGATIVE_INFINITY;
  private readonly timer: NodeJS.Timeout;
  /** The registration awaiting its answer, if any. */
  private registering: Promise<void> | undefined;

  constructor(
    private readonly rpc: RpcClient,
    private readonly logger: Logger,
    private readonly cacheTtlMs: number,
    /** Default: 2000. */
    intervalMs = 2000,
  ) {
    this.timer = setInterval(() => void this.renew(), intervalMs);
    this.timer.unref();
    void this.renew();
  }

  private renew(): Promise<void> {
    const registering = this.register().finally(() => {
      if (this.registering === registering) this.registering = undefined;
    });
    this.registering = registering;
    return registering;
  }

  /** Until when cached keys may be used. */
  get trustedUntil(): number {
    return this.confirmedAt + this.cacheTtlMs;
  }

  private async register(): Promise<void> {
    const sentAt = Date.now(); // the lease started no earlier than this
    try {
      await this.rpc.call('authority.registerApiInstance', { instance_id: this.instanceId, cache_ttl_ms: this.cacheTtlMs });
      this.confirmedAt = sentAt;
    } catch (error) {
      // Started before the authority, on a broker that has not yet seen it: nothing is cached yet,
      // and the next registration, 2 s later, finds it.
      if (error instanceof RpcNoServiceError && this.confirmedAt === Number.NEGATIVE_INFINITY) {
        this.logger.info('waiting for the authority to start; keys are checked once it answers', { error: error.message });
        return;
      }
      this.logger.warn('api instance lease not renewed; cached keys serve until it ends', {
        error: (error as Error).message,
        trustedFor: Math.max(0, this.trustedUntil - Date.now()),
      });
    }
  }

  /**
   * Ends the lease at once, so key changes stop waiting for this instance. A registration still
   * on its way is answered first: arriving after the end, it would start the lease again.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.registering;
    this.confirmedAt = Number.NEGATIVE_INFINITY;
    await this.rpc.call('authority.unregisterApiInstance', { instance_id: this.instanceId }).catch(() => undefined);
  }
}
