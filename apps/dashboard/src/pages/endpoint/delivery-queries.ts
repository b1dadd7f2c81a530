import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../generated/dashboard-v1';
import { endpointKey } from '../webhooks/webhook-queries';
import type { EventName } from '../webhooks/webhook-queries';

type DeliveryPage = paths['/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries']['get']['responses'][200]['content']['application/json'];
export type Delivery = DeliveryPage['items'][number];
export type DeliveryStatus = Delivery['status'];

/**
 * The history's words for each status, which the specification leaves to us, and what each
 * means, as the OpenAPI document says it. A Record, so a new status fails the type check here.
 */
const STATUS_WORDS: Record<DeliveryStatus, { label: string; meaning: string }> = {
  pending: { label: 'Pending', meaning: 'Not attempted yet.' },
  retrying: { label: 'Retrying', meaning: 'An attempt failed; a retry is scheduled.' },
  delivered: { label: 'Delivered', meaning: 'The endpoint answered with a 2xx status.' },
  abandoned: { label: 'Abandoned', meaning: 'The fifth retry failed, or a redelivery by hand failed.' },
  withheld: { label: 'Withheld', meaning: 'Not sent: it names an erased user.' },
  cancelled: { label: 'Cancelled', meaning: 'Not attempted again: the endpoint no longer selects this event.' },
  held: { label: 'Held', meaning: 'Not sent: the endpoint is paused. Recover sends it once the endpoint is resumed.' },
};

export const STATUSES = (Object.entries(STATUS_WORDS) as Array<[DeliveryStatus, { label: string; meaning: string }]>).map(([status, words]) => ({ status, ...words }));

export const statusLabel = (status: DeliveryStatus) => STATUS_WORDS[status].label;

/** A delivery that changes no more by itself; one that is not may be redelivered by hand, unless withheld. */
export const isSettled = (status: DeliveryStatus) => status !== 'pending' && status !== 'retrying';

/**
 * How often a page reads deliveries under way again: soon while one waits for its first attempt,
 * slowly while one waits minutes or hours for a retry, not at all once they have all settled.
 */
function refreshInterval(deliveries: ReadonlyArray<{ status: DeliveryStatus }>): number | false {
  if (deliveries.some((delivery) => delivery.status === 'pending')) return 3000;
  if (deliveries.some((delivery) => delivery.status === 'retrying')) return 30_000;
  return false;
}

export interface HistoryFilter {
  status?: DeliveryStatus;
  event?: EventName;
}

export function useDeliveries(appId: number, endpointId: string, filter: HistoryFilter, cursor: string | undefined) {
  return useQuery({
    queryKey: [...endpointKey(appId, endpointId), 'deliveries', filter, cursor ?? ''],
    queryFn: () =>
      unwrap(
        api.GET('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries', {
          params: {
            path: { appId, endpointId },
            query: { ...(cursor ? { cursor } : {}), ...(filter.status ? { status: [filter.status] } : {}), ...(filter.event ? { event: [filter.event] } : {}) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data ? refreshInterval(query.state.data.items) : false),
  });
}

export function useDelivery(appId: number, endpointId: string, deliveryId: string) {
  return useQuery({
    queryKey: [...endpointKey(appId, endpointId), 'delivery', deliveryId],
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries/{deliveryId}', { params: { path: { appId, endpointId, deliveryId } } })),
    refetchInterval: (query) => (query.state.data ? refreshInterval([query.state.data.delivery]) : false),
  });
}

/** Redeliver, Send test: the history is read again at once, and keeps refreshing while they run. */
function useRefreshHistory(appId: number, endpointId: string) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: endpointKey(appId, endpointId) });
}

export function useRedeliver(appId: number, endpointId: string, deliveryId: string) {
  const refresh = useRefreshHistory(appId, endpointId);
  return useMutation({
    mutationFn: () => unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries/{deliveryId}/redeliver', { params: { path: { appId, endpointId, deliveryId } } })),
    onSettled: refresh,
  });
}

export function useSendTest(appId: number, endpointId: string) {
  const refresh = useRefreshHistory(appId, endpointId);
  return useMutation({
    mutationFn: () => unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/test', { params: { path: { appId, endpointId } } })),
    onSettled: refresh,
  });
}

export function useRotateSecret(appId: number, endpointId: string) {
  return useMutation({
    // The answer holds the signing secret: the mutation cache forgets it at once.
    gcTime: 0,
    mutationFn: () => unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/rotate-secret', { params: { path: { appId, endpointId } } })),
  });
}
