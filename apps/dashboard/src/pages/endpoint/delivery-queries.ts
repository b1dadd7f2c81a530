import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../generated/dashboard-v1';
import { endpointKey } from '../webhooks/webhook-queries';
import type { EventName } from '../webhooks/webhook-queries';

type DeliveryPage = paths['/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries']['get']['responses'][200]['content']['application/json'];
export type Delivery = DeliveryPage['items'][number];
export type DeliveryStatus = Delivery['status'];

/** The history's words for each status (the specification leaves their names to us). */
export const STATUSES: ReadonlyArray<{ status: DeliveryStatus; label: string; meaning: string }> = [
  { status: 'pending', label: 'Pending', meaning: 'Not attempted yet' },
  { status: 'retrying', label: 'Retrying', meaning: 'Failed; a retry is scheduled' },
  { status: 'delivered', label: 'Delivered', meaning: 'The endpoint answered 2xx' },
  { status: 'abandoned', label: 'Abandoned', meaning: 'Every retry failed' },
  { status: 'withheld', label: 'Withheld', meaning: 'Not sent: it names an erased user' },
  { status: 'cancelled', label: 'Cancelled', meaning: 'Not sent again: the endpoint no longer selects this event' },
];

export const statusLabel = (status: DeliveryStatus) => STATUSES.find((entry) => entry.status === status)?.label ?? status;

/** Deliveries that will change by themselves: the page reads them again until they settle. */
const unsettled = (deliveries: ReadonlyArray<{ status: DeliveryStatus }>) => deliveries.some((delivery) => delivery.status === 'pending' || delivery.status === 'retrying');
const REFRESH_MS = 3000;

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
    refetchInterval: (query) => (query.state.data && unsettled(query.state.data.items) ? REFRESH_MS : false),
  });
}

export function useDelivery(appId: number, endpointId: string, deliveryId: string) {
  return useQuery({
    queryKey: [...endpointKey(appId, endpointId), 'delivery', deliveryId],
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/deliveries/{deliveryId}', { params: { path: { appId, endpointId, deliveryId } } })),
    refetchInterval: (query) => (query.state.data && unsettled([query.state.data.delivery]) ? REFRESH_MS : false),
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
    mutationFn: () => unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/rotate-secret', { params: { path: { appId, endpointId } } })),
  });
}
