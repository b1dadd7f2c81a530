import type { Logger } from '@feedback/logging';
import type { ConfirmedPublisher, TopologyNames } from '@feedback/messaging';

/**
 * Remembers when each key was last used and reports it to the authority in one message every
 * few seconds, so "last usage" costs no database write per request.
 */
export class KeyUsageRecorder {
  private pending = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly publisher: ConfirmedPublisher,
    private readonly names: TopologyNames,
    private readonly logger: Logger,
    /** Default: 5000. */
    intervalMs = 5000,
  ) {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  record(keyId: string): void {
    this.pending.set(keyId, new Date());
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const usages = [...batch].map(([key_id, at]) => ({ key_id, last_used_at: at.toISOString() }));
    try {
      await this.publisher.publish(this.names.authorityEvents, 'key.used', { usages });
    } catch (error) {
      // Put them back unless newer usages arrived meanwhile; the next flush retries.
      for (const [keyId, at] of batch) if (!this.pending.has(keyId)) this.pending.set(keyId, at);
      this.logger.warn('key usage not reported; will retry', { error });
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
