import { useCallback, useEffect, useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../generated/dashboard-v1';
import { endpointKey, endpointsKey } from '../webhooks/webhook-queries';

type RecoveryList = paths['/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries']['get']['responses'][200]['content']['application/json'];
export type Recovery = RecoveryList['items'][number];
export type RecoveryRequest = NonNullable<paths['/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries']['post']['requestBody']>['content']['application/json'];
type AuditList = paths['/dashboard/v1/apps/{appId}/webhooks/audit']['get']['responses'][200]['content']['application/json'];
export type AuditEntry = AuditList['items'][number];

const recoveriesKey = (appId: number, endpointId: string) => [...endpointKey(appId, endpointId), 'recoveries'];
const auditKey = (appId: number) => [...endpointsKey(appId), 'audit'];

/**
 * The endpoint's recoveries, read again every second while one runs, to show its progress. When
 * one ends, the history and the audit are read again: both changed as it ran.
 */
export function useRecoveries(appId: number, endpointId: string) {
  const refresh = useRefresh(appId, endpointId);
  const latest = useRef<string | undefined>(undefined);
  const recoveries = useQuery({
    queryKey: recoveriesKey(appId, endpointId),
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries', { params: { path: { appId, endpointId } } })),
    refetchInterval: (query) => (query.state.data?.items.some((recovery) => recovery.state === 'running') ? 1000 : false),
  });
  const newest = recoveries.data?.items[0];
  const seen = newest ? `${newest.id} ${newest.state}` : undefined;
  useEffect(() => {
    const before = latest.current;
    latest.current = seen;
    if (before?.endsWith(' running') && seen !== before) void refresh();
  }, [seen, refresh]);
  return recoveries;
}

/** A start, a cancel, a pause or a resume changes the endpoint, its history, its recoveries and the audit. */
function useRefresh(appId: number, endpointId: string) {
  const queryClient = useQueryClient();
  return useCallback(
    () => Promise.all([queryClient.invalidateQueries({ queryKey: endpointKey(appId, endpointId) }), queryClient.invalidateQueries({ queryKey: auditKey(appId) })]),
    [queryClient, appId, endpointId],
  );
}

export function useStartRecovery(appId: number, endpointId: string) {
  const refresh = useRefresh(appId, endpointId);
  return useMutation({
    mutationFn: (body: RecoveryRequest) => unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries', { params: { path: { appId, endpointId } }, body })),
    onSettled: refresh,
  });
}

export function useCancelRecovery(appId: number, endpointId: string) {
  const refresh = useRefresh(appId, endpointId);
  return useMutation({
    mutationFn: (recoveryId: string) =>
      unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/recoveries/{recoveryId}/cancel', { params: { path: { appId, endpointId, recoveryId } } })),
    onSettled: refresh,
  });
}

export function usePauseEndpoint(appId: number, endpointId: string, action: 'pause' | 'resume') {
  const refresh = useRefresh(appId, endpointId);
  return useMutation({
    mutationFn: () =>
      unwrap(
        action === 'pause'
          ? api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/pause', { params: { path: { appId, endpointId } } })
          : api.POST('/dashboard/v1/apps/{appId}/webhooks/{endpointId}/resume', { params: { path: { appId, endpointId } } }),
      ),
    onSettled: refresh,
  });
}

export function useWebhookAudit(appId: number) {
  return useQuery({
    queryKey: auditKey(appId),
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/webhooks/audit', { params: { path: { appId } } })),
  });
}
