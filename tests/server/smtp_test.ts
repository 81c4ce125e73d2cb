/**
 * The SMTP transport against a real SMTP server on 127.0.0.1 (tests/server/smtp_server.ts):
 * plain, STARTTLS with a private CA, implicit TLS, refusals classified permanent or not,
 * a stable Message-ID, and a hung server that cannot stall an attempt.
 */
import assert from "node:assert/strict";
import net from "node:net";
import { SmtpTransport } from "../../server/mail/smtp.ts";
import { DeliveryError, type Outgoing } from "../../server/messages/types.ts";
import { closeServer, freePort, startSmtpServer, TEST_CA } from "./smtp_server.ts";

const mail = (n: number, to = "someone@demo.example"): Outgoing => ({
  id: `0000test${n}`,
  messageId: `<0000test${n}@qcard.test>`,
  channel: "email",
  to,
  subject: `Test ${n} — é`,
  text: `Your activation code is 1234${n}.\nBonjour, voilà ton code d'activation.`,
});

const transport = (port: number, extra: Partial<ConstructorParameters<typeof SmtpTransport>[0]>) =>
  new SmtpTransport({
    host: "localhost",
    port,
    secure: false,
    from: "QCard <no-reply@qcard.test>",
    timeoutMs: 2000,
    ...extra,
  });

Deno.test("[smtp] plain SMTP: the mail arrives with its text, subject and stable Message-ID", async () => {
  const server = await startSmtpServer();
  const t = transport(server.port, {});
  try {
    await t.send(mail(1));
    const [m] = await server.waitFor(1);
    assert.deepEqual(m.to, ["someone@demo.example"]);
    assert.equal(m.from, "no-reply@qcard.test");
    assert.equal(m.messageId, "<0000test1@qcard.test>");
    assert.equal(m.subject, "Test 1 — é");
    assert.match(m.text, /activation code is 12341\./);
    assert.match(m.text, /voilà ton code d'activation/);
    assert.equal(m.tls, false);
  } finally {
    t.close();
    await server.close();
  }
});

Deno.test("[smtp] STARTTLS against a self-signed CA: refused without it, delivered with SMTP_CA", async () => {
  const server = await startSmtpServer({ starttls: true });
  const without = transport(server.port, { requireTls: true });
  const withCa = transport(server.port, { requireTls: true, ca: TEST_CA });
  try {
    await assert.rejects(without.send(mail(2)), (e: unknown) => {
      assert.ok(e instanceof DeliveryError);
      assert.equal(e.permanent, false, "a certificate problem is retried, not final");
      assert.match(e.message, /certificate|self.signed|issuer|UnknownIssuer/i);
      return true;
    });
    await withCa.send(mail(3));
    const [m] = await server.waitFor(1);
    assert.equal(m.tls, true, "the session was upgraded with STARTTLS");
    assert.match(m.text, /12343/);
  } finally {
    without.close();
    withCa.close();
    await server.close();
  }
});

Deno.test("[smtp] implicit TLS (SMTP_SECURE=true) with the CA", async () => {
  const server = await startSmtpServer({ implicitTls: true });
  const t = transport(server.port, { secure: true, ca: TEST_CA });
  try {
    await t.send(mail(4));
    const [m] = await server.waitFor(1);
    assert.equal(m.tls, true);
  } finally {
    t.close();
    await server.close();
  }
});

Deno.test("[smtp] 5xx is permanent, 4xx and a refused connection are temporary", async () => {
  const server = await startSmtpServer({
    rcptReply: (to) =>
      to.startsWith("gone")
        ? "550 5.1.1 no such user"
        : to.startsWith("busy")
        ? "451 4.3.0 try again later"
        : undefined,
  });
  const t = transport(server.port, {});
  const down = transport(await freePort(), {});
  try {
    await assert.rejects(t.send(mail(5, "gone@demo.example")), (e: unknown) => {
      assert.ok(e instanceof DeliveryError);
      assert.equal(e.permanent, true);
      assert.match(e.message, /550/);
      return true;
    });
    await assert.rejects(t.send(mail(6, "busy@demo.example")), (e: unknown) => {
      assert.ok(e instanceof DeliveryError);
      assert.equal(e.permanent, false);
      return true;
    });
    await assert.rejects(down.send(mail(7)), (e: unknown) => {
      assert.ok(e instanceof DeliveryError);
      assert.equal(e.permanent, false);
      assert.match(e.message, /ECONNREFUSED|ECONNECTION|refused/i);
      return true;
    });
    assert.equal(server.mails.length, 0);
  } finally {
    t.close();
    down.close();
    await server.close();
  }
});

Deno.test("[smtp] a server that accepts the connection and never greets times out", async () => {
  const sockets = new Set<net.Socket>();
  const mute = net.createServer((s) => {
    sockets.add(s);
    s.on("error", () => {});
  });
  await new Promise<void>((r) => mute.listen(0, "127.0.0.1", () => r()));
  const port = (mute.address() as net.AddressInfo).port;
  const t = transport(port, { timeoutMs: 300 });
  try {
    const t0 = performance.now();
    await assert.rejects(t.send(mail(8)), (e: unknown) => {
      assert.ok(e instanceof DeliveryError);
      assert.equal(e.permanent, false);
      return true;
    });
    assert.ok(performance.now() - t0 < 3000, "the greeting timeout ended the attempt");
  } finally {
    t.close();
    for (const s of sockets) s.destroy();
    await closeServer(mute);
    await new Promise((r) => setTimeout(r, 20));
  }
});
