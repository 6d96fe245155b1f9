import { useRef, useState } from 'preact/hooks';
import { handler } from './events';
import { Notice } from './feedback';

/**
 * A credential shown once (an API key, an OAuth client's secret): a read-only field that selects
 * itself, a Copy button (when the browser refuses the clipboard, the value is selected for Ctrl+C
 * instead, and the operator is told), and Done. `noun` names it in the button and the messages.
 */
export function ShownOnce({
  label,
  noun,
  value,
  onDone,
}: {
  label: string;
  noun: string;
  value: string | null;
  onDone: () => void;
}) {
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'copied' | 'selected' | null>(null);

  const select = () => {
    field.current?.focus();
    field.current?.select();
  };
  const copy = async () => {
    if (value === null) return;
    try {
      await navigator.clipboard.writeText(value);
      setCopied('copied');
    } catch {
      select();
      setCopied('selected');
    }
  };

  return (
    <>
      {value !== null && (
        <label>
          {label}
          <input ref={field} class="key" readOnly value={value} onFocus={select} spellcheck={false} />
        </label>
      )}
      <div class="actions">
        {value !== null && (
          <button type="button" onClick={handler(copy)}>
            Copy {noun}
          </button>
        )}
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
      {copied === 'copied' && <Notice>The {noun} is copied to the clipboard.</Notice>}
      {copied === 'selected' && (
        <p class="hint" role="status">
          The browser did not let the console copy: the {noun} is selected, press Ctrl+C (⌘C on a Mac) to copy it.
        </p>
      )}
    </>
  );
}
