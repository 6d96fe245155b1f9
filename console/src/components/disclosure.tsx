import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'preact/hooks';

/**
 * A button (`label`, with aria-expanded) that shows a panel, usually a form, below it. Opening moves
 * focus to the panel's first field; `close` (handed to the panel) hides it and puts focus back.
 */
export function Disclosure({ label, children }: { label: string; children: (close: () => void) => ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const panel = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);

  useEffect(() => {
    if (open) panel.current?.querySelector<HTMLElement>('input, select, textarea, button')?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      button.current?.focus();
    }
  }, [open]);

  const close = () => {
    returnFocus.current = true;
    setOpen(false);
  };

  return (
    <div class="disclosure">
      <button
        type="button"
        ref={button}
        class={open ? 'secondary' : undefined}
        aria-expanded={open}
        aria-controls={id}
        onClick={() => (open ? close() : setOpen(true))}
      >
        {label}
      </button>
      {open && (
        <div id={id} class="panel" ref={panel}>
          {children(close)}
        </div>
      )}
    </div>
  );
}
