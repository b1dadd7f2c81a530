import type { ComponentType } from 'react';
import { Navigate, createBrowserRouter } from 'react-router';
import { NotFoundPage } from '../pages/not-found/not-found-page';
import { SignInPage } from '../pages/sign-in/sign-in-page';
import { SignUpPage } from '../pages/sign-up/sign-up-page';
import { AppLayout, ManagersOnly } from './app-layout';
import { Layout } from './layout';
import { RequireSession } from './require-session';
import { RouteError } from './route-error';

/**
 * A page loaded when first opened: the sign-in page, the first a visitor sees, stays small.
 */
function page<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string) {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

/**
 * Every page and its address below /dashboard. `manage_scopes_url` in a 403 of the REST API points
 * at `/apps/:appId/settings/api-keys`: keep that path.
 */
export const router = createBrowserRouter(
  [
    {
      errorElement: <RouteError />,
      children: [
        { path: 'sign-in', element: <SignInPage /> },
        { path: 'sign-up', element: <SignUpPage /> },
        {
          element: <RequireSession />,
          children: [
            {
              element: <Layout />,
              children: [
                { index: true, element: <Navigate to="/apps" replace /> },
                { path: 'apps', lazy: page(() => import('../pages/apps/apps-page'), 'AppsPage') },
                { path: 'team', lazy: page(() => import('../pages/team/team-page'), 'TeamPage') },
                {
                  path: 'apps/:appId',
                  element: <AppLayout />,
                  children: [
                    { index: true, element: <Navigate to="board" replace /> },
                    { path: 'board', lazy: page(() => import('../pages/board/board-page'), 'BoardPage') },
                    { path: 'board/suggestions/:suggestionId', lazy: page(() => import('../pages/board/suggestion-page'), 'SuggestionPage') },
                    { path: 'board/tickets/:ticketId', lazy: page(() => import('../pages/board/ticket-page'), 'TicketPage') },
                    {
                      path: 'settings',
                      element: <ManagersOnly />,
                      children: [
                        { path: 'api-keys', lazy: page(() => import('../pages/api-keys/api-keys-page'), 'ApiKeysPage') },
                        { path: 'webhooks', lazy: page(() => import('../pages/webhooks/webhooks-page'), 'WebhooksPage') },
                        { path: 'webhooks/:endpointId', lazy: page(() => import('../pages/endpoint/endpoint-page'), 'EndpointPage') },
                        { path: 'webhooks/:endpointId/deliveries/:deliveryId', lazy: page(() => import('../pages/endpoint/delivery-page'), 'DeliveryPage') },
                      ],
                    },
                  ],
                },
                { path: '*', element: <NotFoundPage /> },
              ],
            },
          ],
        },
      ],
    },
  ],
  { basename: '/dashboard' },
);
