import type { RpcRequest, RpcResult } from '@feedback/contracts';
import type { PrismaClient } from '../generated/prisma/client.js';

/**
 * Leases of api instances. An instance registers every couple of seconds; its lease runs for
 * its cache lifetime plus `graceMs` from the authority's clock, which covers the gap between
 * heartbeats and clock skew. Until it ends, the instance may be answering from its cache (even
 * cut off from the broker), so key changes wait for it.
 */
export function apiInstanceLeases(prisma: PrismaClient, graceMs: number) {
  return {
    async register({ instance_id, cache_ttl_ms }: RpcRequest<'authority.registerApiInstance'>): Promise<RpcResult<'authority.registerApiInstance'>> {
      const leaseUntil = new Date(Date.now() + cache_ttl_ms + graceMs);
      await prisma.apiInstance.upsert({ where: { id: instance_id }, create: { id: instance_id, leaseUntil }, update: { leaseUntil } });
      return { lease_until: leaseUntil.toISOString() };
    },

    async unregister({ instance_id }: RpcRequest<'authority.unregisterApiInstance'>): Promise<RpcResult<'authority.unregisterApiInstance'>> {
      await prisma.apiInstance.deleteMany({ where: { id: instance_id } });
      return {};
    },

    /** Instances a key change must hear from; ended leases are cleared on the way. */
    async holders(): Promise<string[]> {
      const now = new Date();
      await prisma.apiInstance.deleteMany({ where: { leaseUntil: { lt: now } } });
      return (await prisma.apiInstance.findMany({ select: { id: true } })).map((instance) => instance.id);
    },
  };
}
export type ApiInstanceLeases = ReturnType<typeof apiInstanceLeases>;
