/**
 * Preload for the Deploy rehearsal (`deno test --preload`, `deno run --preload`): Deno KV as
 * today's Deno Deploy and KV Connect offer it, without queues. `enqueue` and `listenQueue`
 * throw as they do there, so any code that still needs a KV queue fails loudly under it.
 */
const refuse = (name: string) =>
  function (): never {
    throw new TypeError(`Deno.Kv ${name}() is not supported on Deno Deploy (KV has no queues)`);
  };
Object.defineProperty(Deno.Kv.prototype, "enqueue", { value: refuse("enqueue") });
Object.defineProperty(Deno.Kv.prototype, "listenQueue", { value: refuse("listenQueue") });
Object.defineProperty(Deno.AtomicOperation.prototype, "enqueue", {
  value: refuse("atomic enqueue"),
});
