import { checkPage, dashboardCall, expect, makeTeam, signIn, test } from '../../browser-tests/harness';
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

test('a tab in use renews its session, and a tab left idle asks for the password over the page, keeping what was typed', async ({ page }) => {
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

  // Twenty minutes without a key or a click, a name half typed: the token runs out.
  await page.getByLabel('App name').fill('Half-typed app');
  await page.clock.fastForward('20:00');
  const again = page.getByRole('dialog', { name: 'Your session ended' });
  await expect(again).toBeVisible();
  await checkPage(page, 'session-ended');
  await again.getByLabel('Password').fill(team.owner.password);
  await again.getByRole('button', { name: 'Sign in' }).click();
  await expect(again).toBeHidden();
  await expect(page.getByLabel('App name')).toHaveValue('Half-typed app');
  expect(await storedToken(page)).not.toBe(renewed);
});
