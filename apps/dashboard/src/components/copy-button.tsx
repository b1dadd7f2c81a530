import { useState } from 'react';
import { useCopyToClipboard, useTimeout } from 'usehooks-ts';

/** Copies `text`, then says so for two seconds, to the eye and to screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [, copy] = useCopyToClipboard();
  const [outcome, setOutcome] = useState<'copied' | 'failed' | undefined>();
  useTimeout(() => setOutcome(undefined), outcome ? 2000 : null);
  return (
    <>
      <button type="button" className="button-secondary button-small" onClick={async () => setOutcome((await copy(text)) ? 'copied' : 'failed')}>
        {label}
      </button>
      <span role="status" className="copy-status">
        {outcome === 'copied' ? 'Copied' : outcome === 'failed' ? 'Could not copy: select the text and copy it' : ''}
      </span>
    </>
  );
}
