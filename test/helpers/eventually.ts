/**
 * Polls until `check` holds, a bounded number of times: how a test awaits a change of state it
 * cannot be told about (another process, a reconnection). It never asserts how long that took.
 */
export async function eventually(check: () => Promise<boolean>, attempts = 100): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the awaited state did not come after ${attempts} checks`);
}
