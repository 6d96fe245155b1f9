/**
 * An event handler from an async function. The function shows its own failures (ErrorMessage);
 * anything that still escapes is reported on the browser's console rather than lost.
 */
export function handler<E>(run: (event: E) => Promise<void>): (event: E) => void {
  return (event) => {
    run(event).catch((error: unknown) => {
      console.error(error);
    });
  };
}
