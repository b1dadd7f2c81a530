import { useState } from 'react';
import { format, formatDistanceToNowStrict } from 'date-fns';
import { useInterval } from 'usehooks-ts';

/** "3 minutes ago", with the exact time on hover and for screen readers; kept current. */
export function RelativeTime({ value, never = 'Never' }: { value: string | null | undefined; never?: string }) {
  const [, setTick] = useState(0);
  useInterval(() => setTick((tick) => tick + 1), 30_000);
  if (!value) return <span>{never}</span>;
  const date = new Date(value);
  const exact = format(date, 'PPpp');
  return (
    <time dateTime={date.toISOString()} title={exact}>
      {formatDistanceToNowStrict(date, { addSuffix: true })}
      {/* Hovering is for a mouse: a screen reader reads the exact time too. */}
      <span className="visually-hidden"> ({exact})</span>
    </time>
  );
}

/** An exact time, for logs where the order matters more than the distance. */
export function ExactTime({ value }: { value: string }) {
  const date = new Date(value);
  return <time dateTime={date.toISOString()}>{format(date, 'PP, HH:mm:ss.SSS')}</time>;
}
