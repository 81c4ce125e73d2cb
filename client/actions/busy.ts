import { working } from "../state/session.ts";

/**
 * Runs one user action at a time: a second tap while a call is under way does nothing
 * (undefined), and `working` disables the buttons meanwhile.
 */
export async function busy<T>(fn: () => Promise<T>): Promise<T | undefined> {
  if (working.value) return undefined;
  working.value = true;
  try {
    return await fn();
  } finally {
    working.value = false;
  }
}
