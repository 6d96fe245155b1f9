import { useRef, useState } from 'preact/hooks';
import { handler } from './events';
import { Notice } from './feedback';

/**
 * A value a developer pastes into their own configuration (an address): shown as code, with a Copy
 * button named after `noun`. When the browser refuses the clipboard, the value is selected for
 * Ctrl+C instead, and the person is told, as for a credential shown once (shown-once.tsx).
 */
export function CopyValue({ value, noun }: { value: string; noun: string }) {
  const text = useRef<HTMLElement>(null);
  const [copied, setCopied] = useState<'copied' | 'selected' | null>(null);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('copied');
    } catch {
      const selection = window.getSelection();
      if (text.current && selection) {
        const range = document.createRange();
        range.selectNodeContents(text.current);
        selection.removeAllRanges();
        selection.addRange(range);
      }
      setCopied('selected');
    }
  };

  return (
    <>
      <code ref={text}>{value}</code>{' '}
      <button type="button" class="secondary" onClick={handler(copy)}>
        Copy<span class="visually-hidden"> {noun}</span>
      </button>
      {copied === 'copied' && <Notice>The {noun} is copied to the clipboard.</Notice>}
      {copied === 'selected' && (
        <p class="hint" role="status">
          The browser did not let the portal copy: the {noun} is selected, press Ctrl+C (⌘C on a Mac) to copy it.
        </p>
      )}
    </>
  );
}
