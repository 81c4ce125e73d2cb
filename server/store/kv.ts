/**
 * Opens Deno KV: a file by default, `:memory:` in tests, the managed KV on Deno Deploy
 * (no path). Repositories take the `Deno.Kv` and own their key prefixes.
 */
export async function openKv(path: string, onDeploy: boolean): Promise<Deno.Kv> {
  if (onDeploy) return await Deno.openKv();
  if (path !== ":memory:") {
    const dir = path.replace(/[/\\][^/\\]*$/, "");
    if (dir && dir !== path) await Deno.mkdir(dir, { recursive: true });
  }
  return await Deno.openKv(path);
}

/** Reads every value under a prefix (lookups, a user's devices or requests). */
export async function listValues<T>(kv: Deno.Kv, prefix: Deno.KvKey): Promise<T[]> {
  const out: T[] = [];
  // Large batches: a user's 2,000 requests come in two round trips instead of twenty.
  for await (const e of kv.list<T>({ prefix }, { batchSize: 1000 })) out.push(e.value);
  return out;
}
