import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';

export const appsQuery = { queryKey: ['apps'], queryFn: () => unwrap(api.GET('/dashboard/v1/apps')) };

export function useApps() {
  return useQuery(appsQuery);
}

/** One app of the team, from the list the apps page also reads. */
export function useApp(appId: number) {
  const apps = useApps();
  return { ...apps, app: apps.data?.items.find((app) => app.id === appId) };
}
