/**
 * Who acts on a record: an end user of the app (through the widget, or the customer's system on
 * their behalf through the REST API), or a team member in the dashboard. Events name them as
 * `sender` (specification section 2.6).
 */
export type Actor =
  | { type: 'app_user'; externalId: string; name: string | null }
  | { type: 'member'; memberId: string; name: string };

export function senderOf(actor: Actor) {
  return actor.type === 'member'
    ? { type: 'member' as const, external_id: null, name: actor.name }
    : { type: 'app_user' as const, external_id: actor.externalId, name: actor.name };
}

/** Who wrote a stored comment or ticket message, as the board shows it. */
export function writerOf(type: 'agent' | 'app_user', externalId: string | null, name: string | null) {
  return type === 'agent' ? { type: 'member' as const, external_id: null, name } : { type: 'app_user' as const, external_id: externalId, name };
}

/** The app a request acts for, as events carry it. */
export interface AppRef {
  id: number;
  public_key: string;
}
