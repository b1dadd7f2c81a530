import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on a narrow screen, inside its own frame. The frame takes focus,
 * so the keyboard can scroll it too; its label says which table it holds.
 */
export function TableScroll({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-scroll" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
