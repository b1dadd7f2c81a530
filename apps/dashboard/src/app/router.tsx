import { Navigate, createBrowserRouter } from 'react-router';
import { ApiKeysPage } from '../pages/api-keys/api-keys-page';
import { AppsPage } from '../pages/apps/apps-page';
import { BoardPage } from '../pages/board/board-page';
import { SuggestionPage } from '../pages/board/suggestion-page';
import { TicketPage } from '../pages/board/ticket-page';
import { DeliveryPage } from '../pages/endpoint/delivery-page';
import { EndpointPage } from '../pages/endpoint/endpoint-page';
import { NotFoundPage } from '../pages/not-found/not-found-page';
import { SignInPage } from '../pages/sign-in/sign-in-page';
import { SignUpPage } from '../pages/sign-up/sign-up-page';
import { TeamPage } from '../pages/team/team-page';
import { WebhooksPage } from '../pages/webhooks/webhooks-page';
import { AppLayout, ManagersOnly } from './app-layout';
import { Layout } from './layout';
import { RequireSession } from './require-session';

/**
 * Every page and its address below /dashboard. `manage_scopes_url` in a 403 of the REST API points
 * at `/apps/:appId/settings/api-keys`: keep that path.
 */
export const router = createBrowserRouter(
  [
    { path: 'sign-in', element: <SignInPage /> },
    { path: 'sign-up', element: <SignUpPage /> },
    {
      element: <RequireSession />,
      children: [
        {
          element: <Layout />,
          children: [
            { index: true, element: <Navigate to="/apps" replace /> },
            { path: 'apps', element: <AppsPage /> },
            { path: 'team', element: <TeamPage /> },
            {
              path: 'apps/:appId',
              element: <AppLayout />,
              children: [
                { index: true, element: <Navigate to="board" replace /> },
                { path: 'board', element: <BoardPage /> },
                { path: 'board/suggestions/:suggestionId', element: <SuggestionPage /> },
                { path: 'board/tickets/:ticketId', element: <TicketPage /> },
                {
                  path: 'settings',
                  element: <ManagersOnly />,
                  children: [
                    { path: 'api-keys', element: <ApiKeysPage /> },
                    { path: 'webhooks', element: <WebhooksPage /> },
                    { path: 'webhooks/:endpointId', element: <EndpointPage /> },
                    { path: 'webhooks/:endpointId/deliveries/:deliveryId', element: <DeliveryPage /> },
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
  { basename: '/dashboard' },
);
