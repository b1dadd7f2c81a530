import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { PLAN_LIMITS, PLAN_ORDER, planName } from '../../app/names';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { ErrorNotice } from '../../components/error-notice';
import { sessionStore } from '../../session/session-store';
import type { Session } from '../../session/session-store';

type Plan = Session['team']['plan'];

/** The team's plan, and changing it: Owners only, a lower plan confirmed first. */
export function PlanSection({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const team = useQuery({ queryKey: ['team'], queryFn: () => unwrap(api.GET('/dashboard/v1/team')) });
  const [chosen, setChosen] = useState<Plan | undefined>();
  const [confirmDowngrade, setConfirmDowngrade] = useState(false);
  const change = useMutation({
    mutationFn: (plan: Plan) => unwrap(api.PATCH('/dashboard/v1/team', { body: { plan } })),
    onSuccess: (updated) => {
      setChosen(undefined);
      sessionStore.update({ team: updated });
      queryClient.setQueryData(['team'], updated);
    },
    onSettled: () => setConfirmDowngrade(false),
  });
  const current = team.data?.plan ?? session.team.plan;
  const isOwner = session.member.role === 'owner';
  const downgrade = chosen !== undefined && PLAN_ORDER.indexOf(chosen) < PLAN_ORDER.indexOf(current);
  return (
    <section aria-labelledby="plan">
      <h2 id="plan">Plan: {planName(current)}</h2>
      <ErrorNotice error={team.error} onRetry={() => team.refetch()} />
      <table>
        <caption className="visually-hidden">What each plan includes</caption>
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">REST API</th>
            <th scope="col">Webhooks</th>
          </tr>
        </thead>
        <tbody>
          {PLAN_ORDER.map((plan) => (
            <tr key={plan} aria-current={plan === current ? 'true' : undefined}>
              <th scope="row">
                {planName(plan)}
                {plan === current ? ' (current)' : ''}
              </th>
              <td>{PLAN_LIMITS[plan].restApi}</td>
              <td>{PLAN_LIMITS[plan].webhooks}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {isOwner ? (
        <form
          className="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (!chosen || chosen === current) return;
            if (downgrade) setConfirmDowngrade(true);
            else change.mutate(chosen);
          }}
        >
          <div className="field">
            <label htmlFor="plan-choice">Change the plan</label>
            <select id="plan-choice" value={chosen ?? current} onChange={(event) => setChosen(event.target.value as Plan)}>
              {PLAN_ORDER.map((plan) => (
                <option key={plan} value={plan}>
                  {planName(plan)}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="button-primary" disabled={change.isPending || !chosen || chosen === current}>
            {change.isPending ? 'Changing…' : 'Change plan'}
          </button>
        </form>
      ) : (
        <p className="hint">Only an Owner can change the plan.</p>
      )}
      <ErrorNotice error={change.error} onRetry={() => chosen && change.mutate(chosen)} />
      <ConfirmDialog
        open={confirmDowngrade}
        title={`Move the team to ${chosen ? planName(chosen) : ''}?`}
        confirmLabel={`Move to ${chosen ? planName(chosen) : ''}`}
        destructive
        busy={change.isPending}
        onConfirm={() => chosen && change.mutate(chosen)}
        onCancel={() => setConfirmDowngrade(false)}
      >
        <p>
          {chosen === 'free'
            ? 'Every app loses the REST API at once: its keys get 403 plan_upgrade_required. Webhooks are not included either: every endpoint is paused.'
            : 'The team keeps 3 webhook endpoints going, the oldest. Newer ones are paused until the plan includes them again, or an older one is deleted.'}
        </p>
      </ConfirmDialog>
      {change.isSuccess ? (
        <p role="status" className="notice">
          The team is now on the {planName(change.data.plan)} plan.
        </p>
      ) : null}
    </section>
  );
}
