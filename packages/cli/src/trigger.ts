import { randomBytes } from 'node:crypto';
import { dashboardCall } from './dashboard-session.js';

/** Events `trigger` can make fire, each by making a sample record as a user or member would. */
export const TRIGGERABLE_EVENTS = [
  'suggestion.created',
  'suggestion.commented',
  'suggestion.status_changed',
  'ticket.created',
  'ticket.replied',
  'ticket.status_changed',
  'survey.response.created',
] as const;
export type TriggerableEvent = (typeof TRIGGERABLE_EVENTS)[number];

interface Target {
  apiUrl: string;
  appId: number;
  token: string;
}

/** A sample end user, named as such, so that nobody mistakes the records for real ones. */
const sampleUser = () => ({ external_id: `sample-${randomBytes(4).toString('hex')}`, name: 'Sample User' });

async function widget<T>(target: Target, publicKey: string, path: string, body: unknown): Promise<T> {
  const answer = await fetch(`${target.apiUrl}/widget/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${publicKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed = (await answer.json()) as T & { error?: string; message?: string };
  if (!answer.ok) throw new Error(`the widget API refused the sample record: ${answer.status} ${parsed.error}: ${parsed.message}`);
  return parsed;
}

/**
 * Makes `event` fire for the app: a sample suggestion, ticket or survey response made through
 * the widget API, as an end user would, and for the events a member causes, the member's step on
 * the board. Answers what was made.
 */
export async function trigger(target: Target, event: TriggerableEvent): Promise<string> {
  const apps = await dashboardCall<{ items: Array<{ id: number; public_key: string }> }>(target.apiUrl, 'GET', '/apps', target.token);
  const app = apps.items.find((candidate) => candidate.id === target.appId);
  if (!app) throw new Error(`No app ${target.appId} in your team.`);
  const board = `/apps/${target.appId}`;
  if (event.startsWith('suggestion.')) {
    const suggestion = await widget<{ id: number }>(target, app.public_key, '/suggestions', { title: 'Sample suggestion from feedback trigger', user: sampleUser() });
    if (event === 'suggestion.commented') {
      await dashboardCall(target.apiUrl, 'POST', `${board}/suggestions/${suggestion.id}/comments`, target.token, { body: 'A sample comment from feedback trigger.' });
    } else if (event === 'suggestion.status_changed') {
      const detail = await dashboardCall<{ allowed_statuses: string[] }>(target.apiUrl, 'GET', `${board}/suggestions/${suggestion.id}`, target.token);
      await dashboardCall(target.apiUrl, 'PATCH', `${board}/suggestions/${suggestion.id}`, target.token, { status: detail.allowed_statuses[0] });
    }
    return `suggestion ${suggestion.id}`;
  }
  if (event.startsWith('ticket.')) {
    const ticket = await widget<{ id: number }>(target, app.public_key, '/tickets', { subject: 'Sample ticket from feedback trigger', body: 'A sample message.', user: sampleUser() });
    if (event === 'ticket.replied') {
      await dashboardCall(target.apiUrl, 'POST', `${board}/tickets/${ticket.id}/messages`, target.token, { body: 'A sample reply from feedback trigger.', visibility: 'public' });
    } else if (event === 'ticket.status_changed') {
      const detail = await dashboardCall<{ allowed_statuses: string[] }>(target.apiUrl, 'GET', `${board}/tickets/${ticket.id}`, target.token);
      await dashboardCall(target.apiUrl, 'PATCH', `${board}/tickets/${ticket.id}`, target.token, { status: detail.allowed_statuses[0] });
    }
    return `ticket ${ticket.id}`;
  }
  const response = await widget<{ id: number }>(target, app.public_key, '/survey-responses', { survey_id: 'sample', score: 9, user: sampleUser() });
  return `survey response ${response.id}`;
}
