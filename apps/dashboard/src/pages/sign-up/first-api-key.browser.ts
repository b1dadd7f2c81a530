import { checkPage, expect, newMember, test } from '../../../browser-tests/harness';

test('a new user signs up, picks a plan, creates an app and gets a key that writes a suggestion', async ({ page, request }) => {
  const owner = newMember('owner');
  await page.goto('/dashboard/');
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await checkPage(page, 'sign-in');
  await page.getByRole('link', { name: 'Create a team' }).click();
  await checkPage(page, 'sign-up');
  await page.getByLabel('Team name').fill('Acme');
  await page.getByLabel('Your name').fill(owner.name);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: 'Create team' }).click();

  // Free includes no REST API: the Owner moves the team to Starter on the Team page.
  await expect(page.getByRole('heading', { name: 'Apps' })).toBeVisible();
  await expect(page.getByText('Acme · Free plan')).toBeVisible();
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Team' }).click();
  await expect(page.getByRole('heading', { name: 'Plan: Free' })).toBeVisible();
  await checkPage(page, 'team');
  await page.getByLabel('Change the plan').selectOption('starter');
  await page.getByRole('button', { name: 'Change plan' }).click();
  await expect(page.getByRole('heading', { name: 'Plan: Starter' })).toBeVisible();
  await expect(page.getByText('Acme · Starter plan')).toBeVisible();

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Apps' }).click();
  await page.getByLabel('App name').fill('Acme iOS');
  await page.getByRole('button', { name: 'Create app' }).click();
  await expect(page.getByRole('heading', { name: 'Acme iOS' })).toBeVisible();
  await expect(page.getByText(/^pk_live_/)).toBeVisible();
  await checkPage(page, 'apps');

  await page.getByRole('link', { name: 'API keys' }).click();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expect(page.getByRole('switch', { name: /suggestions:read/ })).toBeChecked();
  await expect(page.getByRole('switch', { name: /suggestions:write/ })).not.toBeChecked();
  await checkPage(page, 'api-keys');

  // A key is shown only by a rotation, once.
  await page.getByRole('button', { name: 'Rotate key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rotate the secret key?' });
  await checkPage(page, 'api-keys-rotate-confirm');
  await dialog.getByRole('button', { name: 'Rotate key' }).click();
  await expect(page.getByText('This key will not be shown again.')).toBeVisible();
  const key = await page.getByRole('textbox', { name: 'Your new secret key' }).inputValue();
  expect(key).toMatch(/^sk_live_/);
  await page.getByRole('button', { name: 'Copy key' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await checkPage(page, 'api-keys-new-key');

  // Leaving while the key is on screen asks first.
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Apps' }).click();
  await expect(page.getByRole('dialog', { name: 'Leave without the key?' })).toBeVisible();
  await page.getByRole('dialog', { name: 'Leave without the key?' }).getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByRole('textbox', { name: 'Your new secret key' })).toHaveCount(0);

  const suggestion = { title: 'Dark mode', author: { external_id: 'user-42', name: 'Ada' } };
  const refused = await request.post('/api/v1/suggestions', { headers: { Authorization: `Bearer ${key}` }, data: suggestion });
  expect(refused.status()).toBe(403);

  const write = page.getByRole('switch', { name: /suggestions:write/ });
  await write.check();
  await expect(page.locator('.switch-row', { has: write }).getByRole('status')).toHaveText('Saved');
  const created = await request.post('/api/v1/suggestions', { headers: { Authorization: `Bearer ${key}` }, data: suggestion });
  expect(created.status()).toBe(201);

  // The audit trail names who granted the scope.
  await expect(page.getByRole('row', { name: new RegExp(`${owner.name}.*Granted suggestions:write`) })).toBeVisible();
});
