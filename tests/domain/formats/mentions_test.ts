/** Unit tests of `mentionedEmails`: which addresses after `@` (or `＠`) a chat text mentions. */
import assert from "node:assert/strict";
import { mentionedEmails } from "../../../domain/formats/mentions.ts";

Deno.test("mentionedEmails: a plain mention, and nothing without one", () => {
  assert.deepEqual(mentionedEmails("hi @bo@example.com"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("@bo@example.com"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails(""), []);
  assert.deepEqual(mentionedEmails("no mentions here"), []);
  assert.deepEqual(mentionedEmails("mail bo@example.com directly"), []);
  assert.deepEqual(mentionedEmails("just an @ sign"), []);
  assert.deepEqual(mentionedEmails("@bo"), []);
  assert.deepEqual(mentionedEmails("@bo@example"), [], "no top-level domain");
});

Deno.test("mentionedEmails: the sentence's full stop is not part of the address", () => {
  assert.deepEqual(mentionedEmails("ping @bo@example.com."), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("ping @bo@example.com..."), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("@bo@mail.example.co.jp."), ["bo@mail.example.co.jp"]);
});

Deno.test("mentionedEmails: upper case is matched and lower-cased", () => {
  assert.deepEqual(mentionedEmails("@BO@EXAMPLE.COM"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("@Bo@Example.Com please"), ["bo@example.com"]);
});

Deno.test("mentionedEmails: the same person twice is listed once, in order of appearance", () => {
  assert.deepEqual(
    mentionedEmails("@bo@example.com and @cy@example.com and @BO@example.com again"),
    ["bo@example.com", "cy@example.com"],
  );
});

Deno.test("mentionedEmails: the full-width ＠ works as the mark", () => {
  assert.deepEqual(mentionedEmails("＠bo@example.com"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("確認して＠bo@example.com。"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("確認して@bo@example.com"), ["bo@example.com"]);
});

Deno.test("mentionedEmails: trailing punctuation is dropped", () => {
  for (const tail of [",", "!", ")", "。", "、", "?", ":", ";", "！", "」", "'", '"', "-", ".)"]) {
    assert.deepEqual(
      mentionedEmails(`hey @bo@example.com${tail} ok`),
      ["bo@example.com"],
      `trailing ${JSON.stringify(tail)}`,
    );
  }
  assert.deepEqual(mentionedEmails("(@bo@example.com)"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("[@bo@example.com]"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("@bo@example.com's idea"), ["bo@example.com"]);
});

Deno.test("mentionedEmails: addresses with dots, plus, hyphen, underscore and digits", () => {
  assert.deepEqual(mentionedEmails("@first.last@example.com"), ["first.last@example.com"]);
  assert.deepEqual(mentionedEmails("@bo+chat@example.com"), ["bo+chat@example.com"]);
  assert.deepEqual(mentionedEmails("@bo_b@my-host.example.org"), ["bo_b@my-host.example.org"]);
  assert.deepEqual(mentionedEmails("@user42@example42.io"), ["user42@example42.io"]);
});

Deno.test("mentionedEmails: an apostrophe in the local part (a valid, accepted address)", () => {
  // Sign-up accepts o'neil@example.com, so a member may have it.
  assert.deepEqual(mentionedEmails("thanks @o'neil@example.com!"), ["o'neil@example.com"]);
});

Deno.test("mentionedEmails: an address inside another word mentions nobody", () => {
  assert.deepEqual(mentionedEmails("x@bo@example.com"), []);
  assert.deepEqual(mentionedEmails("a@@bo@example.com"), []);
  assert.deepEqual(mentionedEmails("@@bo@example.com"), []);
  assert.deepEqual(mentionedEmails("me@bo@example.com and @cy@example.com"), ["cy@example.com"]);
});

Deno.test("mentionedEmails: several mentions separated by punctuation and line breaks", () => {
  assert.deepEqual(
    mentionedEmails("@a@example.com,@b@example.com\n@c@example.com;(@d@example.com)"),
    ["a@example.com", "b@example.com", "c@example.com", "d@example.com"],
  );
});

Deno.test("mentionedEmails: Markdown emphasis around a mention does not glue it", () => {
  assert.deepEqual(mentionedEmails("**@bo@example.com** please"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("thanks _@bo@example.com_"), ["bo@example.com"]);
  assert.deepEqual(mentionedEmails("~~@bo@example.com~~"), ["bo@example.com"]);
  // A run of marks glued to a word still glues the mark.
  assert.deepEqual(mentionedEmails("a*@bo@example.com"), []);
  assert.deepEqual(mentionedEmails("a_@bo@example.com"), []);
});
