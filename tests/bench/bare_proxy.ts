/**
 * The floor of any relay on this machine, for tests/bench/relay.ts: the smallest proxy Deno
 * can be (Deno.serve, then fetch to UPSTREAM, the answer's body passed on as it streams), no
 * middleware, logs or checks. It asks the upstream for its client's coding as the edge does
 * (identity for fetch, the client's in X-QCard-Accept-Encoding), so the same gzip'd bytes
 * cross. Prints `{"port": N}` once it listens.
 */
const upstream = Deno.env.get("UPSTREAM")!;
Deno.serve({
  port: 0,
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(JSON.stringify({ port })),
}, async (req) => {
  const u = new URL(req.url);
  const headers = new Headers(req.headers);
  headers.delete("host");
  headers.set("x-qcard-accept-encoding", req.headers.get("accept-encoding") ?? "identity");
  headers.set("accept-encoding", "identity");
  const res = await fetch(`${upstream}${u.pathname}${u.search}`, { headers, redirect: "manual" });
  return new Response(res.body, { status: res.status, headers: res.headers });
});
