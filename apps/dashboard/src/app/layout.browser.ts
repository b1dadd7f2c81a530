import { checkPage, dashboardCall, expect, makeTeam, receiverUrl, signIn, test } from '../../browser-tests/harness';

test('every page fits a phone screen without sideways scrolling, its menu folded behind a button', async ({ page }) => {
  const team = await makeTeam('pro');
  const endpoint = await dashboardCall<{ endpoint: { id: string } }>('POST', `/apps/${team.appId}/webhooks`, team.token, {
    name: 'Phone check',
    url: receiverUrl('/ok/phone'),
    events: ['ticket.created'],
  });
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, team.owner);
  const pages = {
    'phone-apps': '/dashboard/apps',
    'phone-team': '/dashboard/team',
    'phone-api-keys': `/dashboard/apps/${team.appId}/settings/api-keys`,
    'phone-webhooks': `/dashboard/apps/${team.appId}/settings/webhooks`,
    'phone-endpoint': `/dashboard/apps/${team.appId}/settings/webhooks/${endpoint.body.endpoint.id}`,
    'phone-board': `/dashboard/apps/${team.appId}/board`,
  };
  for (const [name, path] of Object.entries(pages)) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
    await checkPage(page, name);
  }
  await expect(page.getByRole('link', { name: 'Team' })).toBeHidden();
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('link', { name: 'Team' }).click();
  await expect(page.getByRole('heading', { name: 'Team' })).toBeVisible();
});

test('a key action works from the keyboard alone: the dialog takes focus on Cancel, Escape closes it and gives focus back', async ({ page }) => {
  const team = await makeTeam('pro');
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/api-keys`);
  const revoke = page.getByRole('button', { name: 'Revoke key' });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Revoke the secret key?' });
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(revoke).toBeFocused();

  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('button', { name: 'Cancel' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(dialog.getByRole('button', { name: 'Revoke key' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Revoked', { exact: true })).toBeVisible();
});
