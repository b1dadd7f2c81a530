/** The identity objects every event's `data` carries (specification section 2.6). */
interface WithIdentities {
  data: {
    author?: { external_id: string | null } | null;
    sender?: { type: string; external_id: string | null } | null;
  };
}

/**
 * Whether to tell the record's author about this event: only when someone else caused it (a
 * member, or another end user). Authors are not told about their own actions, and a record
 * without a known author (erased, or created without one) has nobody to tell.
 */
export function shouldNotifyAuthor(event: WithIdentities): boolean {
  const author = event.data.author?.external_id ?? null;
  if (author === null) return false;
  const sender = event.data.sender;
  if (!sender) return true;
  return !(sender.type === 'app_user' && sender.external_id === author);
}
