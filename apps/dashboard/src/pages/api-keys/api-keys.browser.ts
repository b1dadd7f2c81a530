import { checkPage, dashboardCall, expect, makeTeam, newMember, signIn, test } from '../../../browser-tests/harness';
import type { APIRequestContext, Page } from '@playwright/test';

async function rotateThroughApi(token: string, appId: number): Promise<string> {
  const rotated = await dashboardCall<{ secret_key: string }>('POST', `/apps/${appId}/api-key/rotate`, token);
  expect(rotated.status).toBe(200);
  return rotated.body.secret_key;
}

const listSuggestions = (request: APIRequestContext, key: string) => request.get('/api/v1/suggestions', { headers: { Authorization: `Bearer ${key}` } }).then((answer) => answer.status());

async function keyAction(page: Page, button: string, confirm: RegExp) {
  await page.getByRole('button', { name: button, exact: true }).click();
  const dialog = page.getByRole('dialog', { name: confirm });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await expect(dialog).toBeHidden();
}

test('a revoked key is refused at once and the same key works again once restored', async ({ page, request }) => {
  const team = await makeTeam('pro');
  const key = await rotateThroughApi(team.token, team.appId);
  expect(await listSuggestions(request, key)).toBe(200);
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/api-keys`);

  await keyAction(page, 'Revoke key', /Revoke the secret key/);
  await expect(page.getByText('Revoked', { exact: true })).toBeVisible();
  expect(await listSuggestions(request, key)).toBe(401);
  await checkPage(page, 'api-keys-revoked');

  await keyAction(page, 'Restore key', /Restore the secret key/);
  await expect(page.getByText('Active', { exact: true })).toBeVisible();
  expect(await listSuggestions(request, key)).toBe(200);
  await expect(page.getByRole('row', { name: /Revoked the key/ })).toBeVisible();
  await expect(page.getByRole('row', { name: /Restored the key/ })).toBeVisible();
});

test('a leaked key that was revoked is rotated without being restored: the new key works, the old stays dead', async ({ page, request }) => {
  const team = await makeTeam('pro');
  const leaked = await rotateThroughApi(team.token, team.appId);
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/api-keys`);
  await keyAction(page, 'Revoke key', /Revoke the secret key/);
  expect(await listSuggestions(request, leaked)).toBe(401);

  await page.getByRole('button', { name: 'Rotate key' }).click();
  await expect(page.getByRole('dialog', { name: /Rotate the secret key/ })).toContainText('The revoked key stays revoked.');
  await page.getByRole('dialog', { name: /Rotate the secret key/ }).getByRole('button', { name: 'Rotate key' }).click();
  const fresh = await page.getByRole('textbox', { name: 'Your new secret key' }).inputValue();
  await page.getByRole('button', { name: 'I have copied it' }).click();
  await expect(page.getByText('Active', { exact: true })).toBeVisible();
  expect(await listSuggestions(request, fresh)).toBe(200);
  expect(await listSuggestions(request, leaked)).toBe(401);
});

test('a 403 insufficient_scope links to the key page, which opens after signing in', async ({ page, request }) => {
  const team = await makeTeam('pro');
  const key = await rotateThroughApi(team.token, team.appId);
  const refused = await request.post('/api/v1/suggestions', { headers: { Authorization: `Bearer ${key}` }, data: { title: 'Dark mode', author: { external_id: 'u1' } } });
  expect(refused.status()).toBe(403);
  const body = (await refused.json()) as { manage_scopes_url: string; docs_url: string };

  await page.goto(body.manage_scopes_url);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill(team.owner.email);
  await page.getByLabel('Password').fill(team.owner.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: `${team.appName} sections` })).toBeVisible();

  await page.goto(body.docs_url);
  await expect(page.getByRole('heading', { name: 'API keys and scopes' })).toBeVisible();
  await checkPage(page, 'docs-api-keys');
});

test('a Member sees neither the key nor the webhook settings, in the menu or at their address', async ({ page, browser }) => {
  const team = await makeTeam('pro');
  const member = newMember('member');
  await signIn(page, team.owner, '/dashboard/team');
  await page.getByLabel('Name', { exact: true }).fill(member.name);
  await page.getByLabel('Email', { exact: true }).fill(member.email);
  await page.getByLabel('First password').fill(member.password);
  await page.getByLabel('Role', { exact: true }).selectOption('member');
  await page.getByRole('button', { name: 'Add member' }).click();
  await expect(page.getByRole('row', { name: new RegExp(member.name) })).toBeVisible();
  await checkPage(page, 'team-members');

  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  await signIn(memberPage, member);
  await expect(memberPage.getByRole('link', { name: 'Board' })).toBeVisible();
  await expect(memberPage.getByRole('link', { name: 'API keys' })).toHaveCount(0);
  await expect(memberPage.getByRole('link', { name: 'Webhooks' })).toHaveCount(0);
  await memberPage.getByRole('link', { name: 'Board' }).click();
  await expect(memberPage.getByRole('link', { name: /Settings/ })).toHaveCount(0);
  for (const settings of ['api-keys', 'webhooks']) {
    await memberPage.goto(`/dashboard/apps/${team.appId}/settings/${settings}`);
    await expect(memberPage.getByRole('heading', { name: 'Only Owners and Admins can manage API keys and webhooks' })).toBeVisible();
  }
  await memberPage.goto('/dashboard/team');
  await expect(memberPage.getByText('Only an Owner can change the plan.')).toBeVisible();
  await expect(memberPage.getByRole('button', { name: 'Add member' })).toHaveCount(0);
  await memberContext.close();

  // The Owner removes the member, after confirming.
  await page.getByRole('button', { name: `Remove ${member.name}` }).click();
  await page.getByRole('dialog', { name: `Remove ${member.name}?` }).getByRole('button', { name: 'Remove member' }).click();
  await expect(page.getByRole('row', { name: new RegExp(member.name) })).toHaveCount(0);
});
