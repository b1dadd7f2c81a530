import { checkPage, dashboardCall, expect, makeTeam, receiverUrl, signIn, test, widgetCall } from '../../../browser-tests/harness';

test('an endpoint shows its health, is paused and resumed, recovers what failed with its progress, and shows each request as sent', async ({ page }) => {
  const team = await makeTeam('pro');
  const created = await dashboardCall<{ endpoint: { id: string } }>('POST', `/apps/${team.appId}/webhooks`, team.token, {
    name: 'Orders',
    url: receiverUrl('/down/orders'),
    events: ['suggestion.created'],
  });
  expect(created.status).toBe(201);
  const endpointId = created.body.endpoint.id;
  await widgetCall(team, '/suggestions', { title: 'Lost in the outage', user: { external_id: 'u-1', name: 'Ada' } });
  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/settings/webhooks/${endpointId}`);

  // The outage: the delivery is abandoned, and the health says since when the endpoint fails.
  const lost = page.getByRole('row', { name: /suggestion\.created/ });
  await expect(async () => {
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect(lost.getByText('Abandoned')).toBeVisible({ timeout: 1000 });
  }).toPass();
  // Health is written every few seconds, so it may lag the history: read again until counted.
  await expect(async () => {
    await page.reload();
    await expect(page.getByText(/^0% of \d+ attempts$/)).toBeVisible({ timeout: 1000 });
  }).toPass();
  await expect(page.locator('dd', { hasText: 'Not failing' })).toHaveCount(0);
  await checkPage(page, 'endpoint-failing');

  // Paused by hand: told why and since when, in the view and its activity; then resumed.
  await page.getByText('Endpoint menu', { exact: true }).click();
  await page.getByRole('button', { name: 'Pause' }).click();
  await page.getByRole('dialog', { name: 'Pause Orders?' }).getByRole('button', { name: 'Pause endpoint' }).click();
  await expect(page.getByText(`by ${team.owner.name}.`)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Recover' })).toBeDisabled();
  await expect(page.getByRole('listitem').filter({ hasText: `Paused by ${team.owner.name}` })).toBeVisible();
  await checkPage(page, 'endpoint-paused');
  await page.getByText('Endpoint menu', { exact: true }).click();
  await page.getByRole('button', { name: 'Resume' }).click();
  await expect(page.getByText('Resume it from the endpoint menu', { exact: false })).toHaveCount(0);

  // Mended, the receiver gets what was lost from one Recover, whose progress shows until it ends.
  await page.getByText('Endpoint menu', { exact: true }).click();
  await page.getByRole('button', { name: 'Edit' }).click();
  await page.getByLabel('URL').fill(receiverUrl('/ok/orders'));
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('button', { name: 'Recover' }).click();
  const progress = page.getByLabel('Recovery progress');
  await expect(progress.getByText('Finished')).toBeVisible();
  await expect(progress.getByText('1 of 1 done')).toBeVisible();
  await expect(page.getByRole('listitem').filter({ hasText: 'Recovery finished by the service' })).toBeVisible();
  await checkPage(page, 'endpoint-recovered');
  await expect(lost.getByText('Delivered')).toBeVisible();

  // Each attempt shows the request as it was sent, signature included, and the body once.
  await lost.getByRole('link').click();
  await expect(page.getByRole('heading', { name: 'Attempt 7: answered 200' })).toBeVisible();
  await expect(page.getByText(/X-Service-Signature: t=\d+,v1=[0-9a-f]{64}/).first()).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Body sent' })).toBeVisible();
  await expect(page.getByText(/"title": "Lost in the outage"/)).toBeVisible();
  await checkPage(page, 'delivery-request-as-sent');
});
