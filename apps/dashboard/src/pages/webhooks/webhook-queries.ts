import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../generated/dashboard-v1';

type EndpointPage = paths['/dashboard/v1/apps/{appId}/webhooks']['get']['responses'][200]['content']['application/json'];
export type Endpoint = EndpointPage['items'][number];
export type EventName = Endpoint['events'][number];
export type EndpointFields = { name: string; url: string; events: EventName[] };

/** Every event an endpoint may select (specification 6), with when it is sent. */
export const EVENTS: ReadonlyArray<{ event: EventName; when: string }> = [
  { event: 'suggestion.created', when: 'A new suggestion is submitted' },
  { event: 'suggestion.status_changed', when: "A suggestion's status is changed" },
  { event: 'suggestion.commented', when: 'A comment is added to a suggestion' },
  { event: 'ticket.created', when: 'A new ticket is opened' },
  { event: 'ticket.status_changed', when: "A ticket's status is changed" },
  { event: 'ticket.replied', when: 'A public reply is added to a ticket' },
  { event: 'survey.response.created', when: 'A user submits a survey response' },
];

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

export function useDeleteEndpoint(appId: number, endpointId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.DELETE('/dashboard/v1/apps/{appId}/webhooks/{endpointId}', { params: { path: { appId, endpointId } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: endpointsKey(appId) }),
  });
}
