import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import type { components } from '../../generated/dashboard-v1';

export type Suggestion = components['schemas']['Suggestion'];
export type Ticket = components['schemas']['Ticket'];
export type SuggestionStatus = Suggestion['status'];
export type TicketStatus = Ticket['status'];

export const SUGGESTION_STATUS_WORDS: Record<SuggestionStatus, string> = {
  open: 'Open',
  under_review: 'Under review',
  planned: 'Planned',
  in_progress: 'In progress',
  completed: 'Completed',
  declined: 'Declined',
};

export const TICKET_STATUS_WORDS: Record<TicketStatus, string> = { open: 'Open', pending: 'Waiting on the user', solved: 'Solved', closed: 'Closed' };

const boardKey = (appId: number) => ['apps', appId, 'board'];
const suggestionKey = (appId: number, id: number) => [...boardKey(appId), 'suggestion', id];
const ticketKey = (appId: number, id: number) => [...boardKey(appId), 'ticket', id];

export function useSuggestions(appId: number, cursor: string | undefined) {
  return useQuery({
    queryKey: [...boardKey(appId), 'suggestions', cursor ?? ''],
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/suggestions', { params: { path: { appId }, query: cursor ? { cursor } : {} } })),
    placeholderData: keepPreviousData,
  });
}

export function useTickets(appId: number, cursor: string | undefined) {
  return useQuery({
    queryKey: [...boardKey(appId), 'tickets', cursor ?? ''],
    queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/tickets', { params: { path: { appId }, query: cursor ? { cursor } : {} } })),
    placeholderData: keepPreviousData,
  });
}

/** A thread's pages, oldest first: the first page at once, "Show more" for each next one. */
const THREAD_PAGE = 50;
const threadPaging = { initialPageParam: undefined as string | undefined, getNextPageParam: (page: { next_cursor: string | null }) => page.next_cursor ?? undefined };

export function useSuggestion(appId: number, suggestionId: number) {
  const path = { params: { path: { appId, suggestionId } } };
  const suggestion = useQuery({ queryKey: suggestionKey(appId, suggestionId), queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/suggestions/{suggestionId}', path)) });
  const comments = useInfiniteQuery({
    queryKey: [...suggestionKey(appId, suggestionId), 'comments'],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/dashboard/v1/apps/{appId}/suggestions/{suggestionId}/comments', {
          params: { path: { appId, suggestionId }, query: { limit: THREAD_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    ...threadPaging,
  });
  return { suggestion, comments };
}

export function useTicket(appId: number, ticketId: number) {
  const ticket = useQuery({ queryKey: ticketKey(appId, ticketId), queryFn: () => unwrap(api.GET('/dashboard/v1/apps/{appId}/tickets/{ticketId}', { params: { path: { appId, ticketId } } })) });
  const messages = useInfiniteQuery({
    queryKey: [...ticketKey(appId, ticketId), 'messages'],
    queryFn: ({ pageParam }) =>
      unwrap(
        api.GET('/dashboard/v1/apps/{appId}/tickets/{ticketId}/messages', {
          params: { path: { appId, ticketId }, query: { limit: THREAD_PAGE, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    ...threadPaging,
  });
  return { ticket, messages };
}

/** After any change on the board, the board and the record are read again. */
function useRefreshBoard(appId: number) {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: boardKey(appId) });
}

export function useSuggestionChanges(appId: number, suggestionId: number) {
  const refresh = useRefreshBoard(appId);
  const path = { params: { path: { appId, suggestionId } } };
  return {
    changeStatus: useMutation({
      mutationFn: (status: SuggestionStatus) => unwrap(api.PATCH('/dashboard/v1/apps/{appId}/suggestions/{suggestionId}', { ...path, body: { status } })),
      onSettled: refresh,
    }),
    comment: useMutation({
      mutationFn: (body: string) => unwrap(api.POST('/dashboard/v1/apps/{appId}/suggestions/{suggestionId}/comments', { ...path, body: { body } })),
      onSuccess: refresh,
    }),
  };
}

export function useTicketChanges(appId: number, ticketId: number) {
  const refresh = useRefreshBoard(appId);
  const path = { params: { path: { appId, ticketId } } };
  return {
    changeStatus: useMutation({
      mutationFn: (status: TicketStatus) => unwrap(api.PATCH('/dashboard/v1/apps/{appId}/tickets/{ticketId}', { ...path, body: { status } })),
      onSettled: refresh,
    }),
    addMessage: useMutation({
      mutationFn: (message: { body: string; visibility: 'public' | 'internal' }) =>
        unwrap(api.POST('/dashboard/v1/apps/{appId}/tickets/{ticketId}/messages', { ...path, body: message })),
      onSuccess: refresh,
    }),
  };
}
