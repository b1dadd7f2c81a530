import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../generated/dashboard-v1';

export type ApiKey = paths['/dashboard/v1/apps/{appId}/api-key']['get']['responses'][200]['content']['application/json'];
export type Scope = ApiKey['scopes'][number];
export type KeyAction = 'revoke' | 'restore' | 'rotate';

/**
 * What each scope allows, in the order of the specification's table (2.3). A Record, so that a
 * scope added to the API fails the type check here until the page can grant it.
 */
const SCOPE_ALLOWS: Record<Scope, string> = {
  'suggestions:read': 'Read suggestions',
  'suggestions:write': 'Create and update suggestions',
  'tickets:read': 'Read support tickets',
  'tickets:write': 'Create and update tickets',
  'analytics:read': 'Read analytics data',
  'privacy:read': 'Export user privacy data',
  'privacy:write': 'Delete user privacy data',
};

export const SCOPES = (Object.entries(SCOPE_ALLOWS) as Array<[Scope, string]>).map(([scope, allows]) => ({ scope, allows }));

const keyPath = (appId: number) => ({ params: { path: { appId } } });
const keyQueryKey = (appId: number) => ['apps', appId, 'api-key'];

export function useApiKey(appId: number) {
  // Last usage is reported every few seconds: keep it current while the page is open.
  return useQuery({ queryKey: keyQueryKey(appId), queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/api-key', keyPath(appId))), refetchInterval: 30_000 });
}

export function useKeyAudit(appId: number) {
  return useQuery({ queryKey: [...keyQueryKey(appId), 'audit'], queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/api-key/audit', keyPath(appId))) });
}

/**
 * Changes of the key; afterwards the key and its audit trail are read again. A change saved but
 * not confirmed by every API server (503 propagation_unconfirmed) is read again too, so the page
 * shows what was saved beside the warning.
 */
function useRefreshKey(appId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: keyQueryKey(appId) });
}

export function useScopeChange(appId: number) {
  const queryClient = useQueryClient();
  const refresh = useRefreshKey(appId);
  return useMutation({
    mutationFn: (body: { grant?: Scope[]; remove?: Scope[]; full_access?: boolean }) =>
      unwrap(api.PATCH('/dashboard/v1/apps/{appId}/api-key', { ...keyPath(appId), body })),
    // The answer is the key as saved: shown at once, so a switch never flicks back meanwhile.
    onSuccess: (saved) => queryClient.setQueryData(keyQueryKey(appId), saved),
    onSettled: refresh,
  });
}

export function useKeyAction(appId: number) {
  const refresh = useRefreshKey(appId);
  return useMutation({
    // A rotation's answer holds the new key: the mutation cache forgets it at once.
    gcTime: 0,
    mutationFn: async (action: KeyAction) => {
      if (action === 'rotate') return unwrap(api.POST('/dashboard/v1/apps/{appId}/api-key/rotate', keyPath(appId)));
      if (action === 'revoke') await unwrap(api.POST('/dashboard/v1/apps/{appId}/api-key/revoke', keyPath(appId)));
      else await unwrap(api.POST('/dashboard/v1/apps/{appId}/api-key/restore', keyPath(appId)));
      return undefined;
    },
    onSettled: refresh,
  });
}
