import { dashboardCall, expect, makeTeam, signIn, test } from '../../browser-tests/harness';
import type { Page } from '@playwright/test';

const storedToken = (page: Page) => page.evaluate(() => (JSON.parse(localStorage.getItem('feedback.dashboard.session') ?? 'null') as { token: string } | null)?.token);

test('signing out ends the session on the server: its token is refused afterwards', async ({ page }) => {
  const team = await makeTeam('pro');
  await signIn(page, team.owner);
  const token = await storedToken(page);
  expect((await dashboardCall('GET', '/team', token)).status).toBe(200);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByText('You are signed out.')).toBeVisible();
  expect(await storedToken(page)).toBeUndefined();
  const refused = await dashboardCall<{ error: string }>('GET', '/team', token);
  expect(refused).toEqual({ status: 401, body: expect.objectContaining({ error: 'invalid_session' }) });
  expect((await dashboardCall('GET', `/apps/${team.appId}/suggestions`, token)).status).toBe(401);
});

test('a tab in use renews its session before it expires, and a tab left idle is signed out', async ({ page }) => {
  const team = await makeTeam('pro');
  await page.clock.install();
  await signIn(page, team.owner);
  const first = await storedToken(page);

  // A token names its times in whole seconds: one renewed in the second it was given is the same.
  await new Promise((resolve) => setTimeout(resolve, 1100));
  // Eight minutes of work: past half of the token's fifteen, the page renews it.
  await page.keyboard.press('Tab');
  await page.clock.fastForward('08:00');
  await expect.poll(() => storedToken(page)).not.toBe(first);
  const renewed = await storedToken(page);
  expect((await dashboardCall('GET', '/team', renewed)).status).toBe(200);

  // Twenty minutes without a key or a click: the token runs out and the page says so.
  await page.clock.fastForward('20:00');
  await expect(page.getByText('Your session ended. Sign in again to continue.')).toBeVisible();
});
