/**
 * A limit stops the parse where it is crossed, whatever the shape of a 1 MiB body.
 *
 * No timing: each hostile body is sent twice with one character replaced by a control
 * character (which the parser refuses the moment it reads it). Put just before the point
 * where a limit is crossed, the parser reads it: the answer names the bad character, which
 * shows the point is exact. Put `FEED_CHARS` after that point, the parser never reaches it:
 * the answer names the limit. A parser that read the whole token or body before checking
 * its limits would name the bad character both times.
 */
import assert from "node:assert/strict";
import { FEED_CHARS } from "../../soap/xml.ts";
import { testApp } from "../helpers/app.ts";
import { faultCode, faultString, post } from "../helpers/soap.ts";
import { hostileShapes } from "./hostile_shapes.ts";

/** `body` with the character at `at` replaced by U+0001 (a surrogate pair as a whole). */
function poisoned(body: string, at: number): string {
  assert.ok(at > 0 && at < body.length, `offset ${at} is inside the body`);
  let i = at;
  if (isLowSurrogate(body.charCodeAt(i))) i--;
  const width = isHighSurrogate(body.charCodeAt(i)) ? 2 : 1;
  return body.slice(0, i) + "\u0001" + "x".repeat(width - 1) + body.slice(i + width);
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

Deno.test("every hostile 1 MiB shape fits the body limit and is named once", () => {
  const shapes = hostileShapes();
  assert.equal(new Set(shapes.map((s) => s.name)).size, shapes.length);
  for (const shape of shapes) {
    const bytes = new TextEncoder().encode(shape.body).byteLength;
    assert.ok(bytes <= 1024 * 1024 && bytes > 1000 * 1024, `${shape.name}: ${bytes} bytes`);
  }
});

for (const shape of hostileShapes()) {
  const { name, body, crossing, message } = shape;
  if (crossing === null || message === null) {
    Deno.test(`a 1 MiB body of ${name} crosses no limit and is read to its end`, async () => {
      const t = await testApp();
      try {
        const res = await post(t, "/hello", body);
        // Read whole: the request reaches the operation, which wants a name.
        assert.equal(faultCode(res.text), "S:Server");
        assert.equal(faultString(res.text), "Name cannot be null or empty");
      } finally {
        await t.close();
      }
    });
    continue;
  }
  Deno.test(`a 1 MiB body of ${name} is refused where the limit is crossed`, async () => {
    const t = await testApp();
    try {
      const before = await post(t, "/hello", poisoned(body, crossing - 1));
      assert.equal(before.status, 500);
      assert.equal(faultCode(before.text), "S:Client");
      assert.match(faultString(before.text) ?? "", /disallowed character/);

      const after = await post(t, "/hello", poisoned(body, crossing + FEED_CHARS));
      assert.equal(after.status, 500);
      assert.equal(faultCode(after.text), "S:Client");
      const text = faultString(after.text) ?? "";
      assert.ok(text.startsWith("Cannot read SOAP message: "), text);
      assert.match(text.slice("Cannot read SOAP message: ".length), message);
    } finally {
      await t.close();
    }
  });
}
