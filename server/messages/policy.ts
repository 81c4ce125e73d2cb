import { DeliveryError } from "./types.ts";

/** Anything a transport throws, as a DeliveryError (unknown failures are temporary). */
export function classify(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new DeliveryError(message.slice(0, 500) || "unknown error", false);
}
