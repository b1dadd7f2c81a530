import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../generated/dashboard-v1';

type EndpointPage = paths['/dashboard/v1/apps/{appId}/webhooks']['get']['responses'][200]['content']['application/json'];
export type Endpoint = EndpointPage['items'][number];
export type EventName = Endpoint['events'][number];
export type EndpointFields = { name: string; url: string; events: EventName[] };

/**
 * When each event is sent (specification 6). A Record, so that an event added to the API fails
 * the type check here until endpoints can select it. `webhook.ping` is Send test's alone.
 */
const EVENT_WHEN: Record<Exclude<EventName, 'webhook.ping'>, string> = {
  'suggestion.created': 'A new suggestion is submitted',
  'suggestion.status_changed': "A suggestion's status is changed",
  'suggestion.commented': 'A comment is added to a suggestion',
  'ticket.created': 'A new ticket is opened',
  'ticket.status_changed': "A ticket's status is changed",
  'ticket.replied': 'A public reply is added to a ticket',
  'survey.response.created': 'A user submits a survey response',
};

export const EVENTS = (Object.entries(EVENT_WHEN) as Array<[EventName, string]>).map(([event, when]) => ({ event, when }));

export const endpointsKey = (appId: number) => ['apps', appId, 'webhooks'];
export const endpointKey = (appId: number, endpointId: string) => [...endpointsKey(appId), endpointId];

export function useEndpoints(appId: number, cursor: string | undefined) {
  return useQuery({
    queryKey: [...endpointsKey(appId), 'page', cursor ?? ''],
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/webhooks', { params: { path: { appId }, query: cursor ? { cursor } : {} } })),
    placeholderData: keepPreviousData,
  });
}

export function useEndpoint(appId: number, endpointId: string) {
  return useQuery({
    queryKey: endpointKey(appId, endpointId),
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/webhooks/{endpointId}', { params: { path: { appId, endpointId } } })),
  });
}

export function useCreateEndpoint(appId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    // The answer holds the signing secret: the mutation cache forgets it at once.
    gcTime: 0,
    mutationFn: (body: EndpointFields) => unwrap(api.POST('/dashboard/v1/apps/{appId}/webhooks', { params: { path: { appId } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsKey(appId) }),
  });
}

export function useUpdateEndpoint(appId: number, endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: Partial<EndpointFields>) =>
      unwrap(api.PATCH('/dashboard/v1/apps/{appId}/webhooks/{endpointId}', { params: { path: { appId, endpointId } }, body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsKey(appId) }),
  });
}

/** Once deleted, the endpoint's own queries are dropped, not read again: they would only find 404s. */
export function useDeleteEndpoint(appId: number, endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/dashboard/v1/apps/{appId}/webhooks/{endpointId}', { params: { path: { appId, endpointId } } })),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: endpointKey(appId, endpointId) });
      return queryClient.invalidateQueries({ queryKey: [...endpointsKey(appId), 'page'] });
    },
  });
}
