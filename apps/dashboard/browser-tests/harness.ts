import { mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import AxeBuilder from '@axe-core/playwright';
import { expect, test as base } from '@playwright/test';
import type { Page } from '@playwright/test';

export { expect };

export const baseUrl = (): string => process.env['DASHBOARD_TEST_BASE_URL']!;
export const receiverUrl = (path: string): string => `${process.env['DASHBOARD_TEST_RECEIVER_URL']}${path}`;

export interface Member {
  name: string;
  email: string;
  password: string;
}

export interface Team {
  owner: Member;
  teamName: string;
  /** Set up through the API: the dashboard's own pages are what the tests click through. */
  token: string;
  appId: number;
  appName: string;
  /** The app's widget key, for acting as its end users. */
  publicKey: string;
}

/** A call to /dashboard/v1 as a program would make it, for setting the stage. */
export async function dashboardCall<T = unknown>(method: string, path: string, token: string | undefined, body?: unknown): Promise<{ status: number; body: T }> {
  const answer = await fetch(`${baseUrl()}/dashboard/v1${path}`, {
    method,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  return { status: answer.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** A call to /widget/v1 as the app's end user would make it through the widget. */
export async function widgetCall<T = unknown>(team: Team, path: string, body: unknown): Promise<T> {
  const answer = await fetch(`${baseUrl()}/widget/v1${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${team.publicKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as T;
}

export function newMember(prefix = 'member'): Member {
  const id = randomBytes(4).toString('hex');
  return { name: `${prefix} ${id}`, email: `${prefix}-${id}@example.com`, password: `a long password ${id}` };
}

/** A team on the Pro plan with one app, made through the API. */
export async function makeTeam(plan: 'free' | 'starter' | 'pro' = 'pro'): Promise<Team> {
  const owner = newMember('owner');
  const teamName = `Team ${randomBytes(3).toString('hex')}`;
  const signUp = await dashboardCall<{ token: string }>('POST', '/sign-up', undefined, { team_name: teamName, name: owner.name, email: owner.email, password: owner.password });
  expect(signUp.status).toBe(201);
  const token = signUp.body.token;
  if (plan !== 'free') expect((await dashboardCall('PATCH', '/team', token, { plan })).status).toBe(200);
  const appName = `App ${randomBytes(3).toString('hex')}`;
  const app = await dashboardCall<{ app: { id: number; public_key: string } }>('POST', '/apps', token, { name: appName });
  expect(app.status).toBe(201);
  return { owner, teamName, token, appId: app.body.app.id, appName, publicKey: app.body.app.public_key };
}

/** Signs in through the sign-in page, as a person would. */
export async function signIn(page: Page, member: Member, path = '/dashboard/apps'): Promise<void> {
  await page.goto(path);
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill(member.email);
  await page.getByLabel('Password').fill(member.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/**
 * No serious or critical accessibility violation on the page as it is now (axe-core), and a
 * screenshot of it under test-results/screens, kept out of the repository.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const grave = results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ rule: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')) }));
  expect(grave, `accessibility violations on ${name}`).toEqual([]);
  mkdirSync('test-results/screens', { recursive: true });
  await page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true });
}

export const test = base;
