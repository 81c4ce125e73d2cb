import assert from "node:assert/strict";
import { injectShell, injectStaticShell } from "../../build.ts";
import { firstScreenCss, markupNames, mayMatch } from "../../client/build/first_css.ts";

Deno.test("[build] shell gets external tags only and refuses inline code", () => {
  const html = "<html>\n  <head>\n    <title>x</title>\n  </head>\n</html>";
  const out = injectShell(html, {
    js: ["/assets/main-A.js", "/assets/chunk-B.js"],
    css: "/assets/main-C.css",
  });
  assert.equal(
    out,
    "<html>\n  <head>\n    <title>x</title>\n" +
      '    <link rel="stylesheet" href="/assets/main-C.css">\n' +
      '    <link rel="modulepreload" href="/assets/chunk-B.js">\n' +
      '    <script type="module" src="/assets/main-A.js"></script>\n' +
      "  </head>\n</html>",
  );
  const shell = { js: ["/assets/main-A.js"], css: null, boot: "start()" };
  for (
    const bad of [
      "<script>alert(1)</script>",
      "<style>p{}</style>",
      '<p style="x">',
      '<p onclick="x">',
    ]
  ) {
    assert.throws(() => injectShell(`<head>${bad}</head>`, shell), /inline/);
    assert.throws(() => injectStaticShell(`<head>${bad}</head>`, shell, "p{}"), /inline/);
  }
});

Deno.test("[build] the static shells carry the stylesheet and the boot script inline, nothing else", () => {
  const html = "<html>\n  <head>\n    <title>x</title>\n  </head>\n</html>";
  const shell = {
    js: ["/assets/main-A.js", "/assets/chunk-B.js", "/assets/chunk-E.js"],
    css: "/assets/main-C.css",
    boot: "start();\n//# sourceMappingURL=boot-D.js.map\n",
  };
  assert.equal(
    injectStaticShell(
      html,
      shell,
      "p{color:red}\n/*# sourceMappingURL=/assets/main-C.css.map */\n",
    ),
    "<html>\n  <head>\n    <title>x</title>\n" +
      "    <style>p{color:red}</style>\n" +
      '    <script type="module" data-entry="/assets/main-A.js"' +
      ' data-preload="/assets/chunk-B.js /assets/chunk-E.js" data-style="/assets/main-C.css">' +
      "start();</script>\n" +
      "  </head>\n</html>",
  );
  assert.throws(() => injectStaticShell(html, shell, "p{}</style><script>x</script>"), /inline/);
  for (const boot of ['a("</script>")', 'a("</SCRIPT ")', 'a("<!--")']) {
    assert.throws(() => injectStaticShell(html, { ...shell, boot }, "p{}"), /cannot be inlined/);
  }
});

Deno.test("[build] the first screens' part of the stylesheet: the rules that can match their markup, in order", () => {
  const names = markupNames(
    '<div class="app"><main class="pad-screen"><h1 id="t">x</h1><button class="pin-key small">',
  );
  for (
    const s of [
      ".pin-key",
      ".pin-key.small",
      "main.pad-screen > h1",
      ".app #t",
      "button:focus-visible",
      ":root[data-mode=approval]",
      "*",
      "html",
      ".pin-key:not(.open)",
    ]
  ) {
    assert.ok(mayMatch(s, names), s);
  }
  for (const s of [".side-panel", ".pin-key.open", "main table", "#other", ".app .tab::after"]) {
    assert.ok(!mayMatch(s, names), s);
  }
  const css = ":root{--a: 1}.tab{color:red}.pin-key,.tab{margin:0}" +
    "@media (min-width:600px){.tab{x:1}.pin-key{x:2}}@media print{.tab{y:1}}" +
    ".shake{animation:shake .5s}@keyframes shake{to{opacity:0}}@keyframes spin{to{opacity:1}}" +
    '.x:after{content:"}{"}.pin-key{font-size:26px}';
  assert.equal(
    firstScreenCss(css, '<p class="pin-key shake">'),
    ":root{--a: 1}.pin-key,.tab{margin:0}@media (min-width:600px){.pin-key{x:2}}" +
      ".shake{animation:shake .5s}@keyframes shake{to{opacity:0}}.pin-key{font-size:26px}",
  );
});
