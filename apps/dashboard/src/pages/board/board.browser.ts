import { checkPage, expect, makeTeam, signIn, test, widgetCall } from '../../../browser-tests/harness';

test('the board moves a suggestion only where it may go, and tells public replies from internal notes', async ({ page }) => {
  const team = await makeTeam('starter');
  const user = { external_id: 'user-42', name: 'Ada Lovelace' };
  const suggestion = await widgetCall<{ id: number }>(team, '/suggestions', { title: 'Dark mode', body: 'Please, for the night shift.', user });
  await widgetCall(team, `/suggestions/${suggestion.id}/comments`, { body: 'Also on the phone app.', user });
  await widgetCall(team, '/tickets', { subject: 'Cannot sign in', body: 'The code never arrives.', user });

  await signIn(page, team.owner, `/dashboard/apps/${team.appId}/board`);
  await expect(page.getByRole('heading', { name: 'Board' })).toBeVisible();
  await expect(page.getByRole('row', { name: /Dark mode/ })).toContainText('Open');
  await checkPage(page, 'board-suggestions');

  await page.getByRole('link', { name: 'Dark mode' }).click();
  await expect(page.getByRole('heading', { name: 'Dark mode' })).toBeVisible();
  await expect(page.getByText('Also on the phone app.')).toBeVisible();
  const moves = await page.getByLabel('Move to').locator('option').allTextContents();
  expect(moves).toEqual(['Choose a status', 'Under review', 'Planned', 'Declined']);
  await checkPage(page, 'board-suggestion');
  await page.getByLabel('Move to').selectOption({ label: 'Planned' });
  await page.getByRole('button', { name: 'Change status' }).click();
  await expect(page.locator('.facts').getByText('Planned')).toBeVisible();
  expect(await page.getByLabel('Move to').locator('option').allTextContents()).toEqual(['Choose a status', 'Under review', 'In progress', 'Declined']);

  await page.getByLabel('Add a comment').fill('Planned for March.');
  await page.getByRole('button', { name: 'Post comment' }).click();
  await expect(page.locator('.from-team').getByText('Planned for March.')).toBeVisible();
  await expect(page.getByLabel('Add a comment')).toHaveValue('');

  await page.getByRole('link', { name: 'Board' }).first().click();
  await page.getByRole('button', { name: 'Tickets' }).click();
  await checkPage(page, 'board-tickets');
  await page.getByRole('link', { name: /Cannot sign in/ }).click();
  await expect(page.getByText('The code never arrives.')).toBeVisible();

  await page.getByLabel('An internal note, for the team only').check();
  await page.getByLabel('Note', { exact: true }).fill('Looks like the mail provider again.');
  await page.getByRole('button', { name: 'Add note' }).click();
  await expect(page.locator('.internal-note')).toContainText('Looks like the mail provider again.');
  await expect(page.locator('.internal-note')).toContainText('Internal note: the user never sees it');

  await page.getByLabel('A public reply, sent to the user').check();
  await page.getByLabel('Reply', { exact: true }).fill('We are on it.');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await expect(page.locator('.from-team')).toContainText('We are on it.');
  await expect(page.locator('.from-team')).toContainText('Public reply');
  await checkPage(page, 'board-ticket');

  await page.getByLabel('Move to').selectOption({ label: 'Solved' });
  await page.getByRole('button', { name: 'Change status' }).click();
  await expect(page.locator('.facts').getByText('Solved')).toBeVisible();
});
