import { useSyncExternalStore } from 'react';

/**
 * How many secrets shown once are on screen now, so that signing out can ask first as leaving the
 * page does: signing out takes the page away without a navigation the router could block.
 */
let shown = 0;
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

export function secretShown(): () => void {
  shown += 1;
  notify();
  return () => {
    shown -= 1;
    notify();
  };
}

export function useSecretOnScreen(): boolean {
  return useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => shown > 0,
  );
}
