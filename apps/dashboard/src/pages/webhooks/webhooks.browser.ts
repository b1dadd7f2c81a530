import { checkPage, expect, makeTeam, receiverUrl, signIn, test } from '../../../browser-tests/harness';
import type { Page } from '@playwright/test';

async function createEndpoint(page: Page, name: string, url: string, events: string[]): Promise<string> {
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('URL').fill(url);
  for (const event of events) await page.getByRole('checkbox', { name: new RegExp(`^${event.replace('.', '\\.')} `) }).check();
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(page.getByText('This signing secret will not be shown again.')).toBeVisible();
  const secret = await page.getByRole('textbox', { name: `Signing secret of ${name}` }).inputValue();
  expect(secret).toMatch(/^whsec_/);
  await page.getByRole('button', { name: 'I have copied it' }).click();
  return secret;
}

test('an endpoint on a receiver that accepts gets Send test as a delivered ping, and its secret rotates once shown', async ({ page }) => {
  const team = await makeTeam('starter');
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/webhooks`);
  await expect(page.getByRole('heading', { name: 'Webhooks' })).toBeVisible();
  await checkPage(page, 'webhooks-empty');

  // A URL that is not public HTTPS is refused next to the URL, and what was typed stays.
  await page.getByRole('button', { name: 'Add endpoint' }).click();
  await page.getByLabel('Name').fill('Orders');
  await page.getByLabel('URL').fill('http://example.com/hooks');
  await page.getByRole('checkbox', { name: /^suggestion\.created / }).check();
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(page.getByText(/Webhook URLs must be public HTTPS addresses/)).toBeVisible();
  await expect(page.getByLabel('URL')).toHaveAttribute('aria-invalid', 'true');
  await expect(page.getByLabel('Name')).toHaveValue('Orders');
  await checkPage(page, 'webhooks-unsafe-url');
  await page.getByRole('button', { name: 'Cancel' }).click();

  await createEndpoint(page, 'Orders', receiverUrl('/ok/orders'), ['suggestion.created', 'ticket.replied']);
  await page.getByRole('link', { name: 'Orders' }).click();
  await expect(page.getByRole('heading', { name: 'Orders' })).toBeVisible();
  await expect(page.getByText('No deliveries yet.')).toBeVisible();
  await checkPage(page, 'endpoint-empty');

  await page.getByText('Endpoint menu').click();
  await checkPage(page, 'endpoint-menu');
  await page.getByRole('button', { name: 'Send test' }).click();
  await expect(page.getByText(/is on its way/)).toBeVisible();
  // The history refreshes by itself until the ping settles.
  const ping = page.getByRole('row', { name: /webhook\.ping/ });
  await expect(ping.getByText('Delivered')).toBeVisible();
  await expect(ping.getByRole('cell', { name: '200' })).toBeVisible();
  await checkPage(page, 'endpoint-history');

  await ping.getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'Attempt 1: answered 200' })).toBeVisible();
  await checkPage(page, 'delivery');
  await page.getByRole('link', { name: 'Back to the endpoint' }).click();

  await page.getByText('Endpoint menu').click();
  await page.getByRole('button', { name: 'Rotate secret' }).click();
  await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
  const rotated = await page.getByRole('textbox', { name: 'New signing secret' }).inputValue();
  expect(rotated).toMatch(/^whsec_/);
  await page.getByRole('button', { name: 'I have copied it' }).click();
});

test('a failing receiver shows its retries and answer as text, and after the URL is fixed Redeliver delivers it', async ({ page }) => {
  const team = await makeTeam('pro');
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/webhooks`);
  await createEndpoint(page, 'Flaky', receiverUrl('/down/flaky'), ['suggestion.created']);
  await page.getByRole('link', { name: 'Flaky' }).click();
  await page.getByText('Endpoint menu').click();
  await page.getByRole('button', { name: 'Send test' }).click();

  const ping = page.getByRole('row', { name: /webhook\.ping/ });
  await expect(ping.getByText(/Retrying|Abandoned/)).toBeVisible();
  // A retrying delivery is read again every 30 s; Refresh reads it now.
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(ping.getByText('Abandoned')).toBeVisible({ timeout: 1000 });
  }).toPass();
  await expect(ping.getByRole('cell', { name: '6', exact: true })).toBeVisible();
  await page.getByLabel('Status').selectOption('abandoned');
  await expect(ping).toBeVisible();
  await page.getByLabel('Status').selectOption('delivered');
  await expect(page.getByText('No deliveries match these filters.')).toBeVisible();
  await page.getByLabel('Status').selectOption('');

  await ping.getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'Attempt 6: answered 503' })).toBeVisible();
  // The receiver's HTML is shown as its text, never run or rendered.
  await expect(page.getByText('<h1>Down for maintenance</h1><script>alert(1)</script>').first()).toBeVisible();
  await checkPage(page, 'delivery-failed');

  await page.getByRole('link', { name: 'Back to the endpoint' }).click();
  await page.getByText('Endpoint menu').click();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('URL').fill(receiverUrl('/ok/fixed'));
  await page.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText(receiverUrl('/ok/fixed'), { exact: true })).toBeVisible();

  await ping.getByRole('link').click();
  await page.getByRole('button', { name: 'Redeliver' }).click();
  await expect(page.getByText('One more attempt is on its way, with the same delivery id.')).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Attempt 7: answered 200' })).toBeVisible();
  await expect(page.locator('.facts').first().getByText('Delivered')).toBeVisible();
});

test('a Free team is told webhooks need Starter or Pro, and is offered no endpoint to add', async ({ page }) => {
  const team = await makeTeam('free');
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/webhooks`);
  await expect(page.getByText('Webhooks are part of the Starter and Pro plans.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Add endpoint' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Team page' }).click();
  await expect(page.getByRole('heading', { name: 'Plan: Free' })).toBeVisible();
});
