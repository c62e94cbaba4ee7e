/** Password hashing: round trip, and the bounded queue in front of scrypt. */
import assert from "node:assert/strict";
import { DomainError } from "../../../domain/kernel/errors.ts";
import { scryptHasher } from "../../../domain/accounts/passwords.ts";

const CHEAP = { N: 2 ** 10, r: 8, p: 1 };

Deno.test("a hash verifies its password and no other", async () => {
  const hasher = scryptHasher(CHEAP);
  const stored = await hasher.hash("correct horse battery");
  assert.match(stored, /^scrypt\$1024\$8\$1\$/);
  assert.equal(await hasher.verify("correct horse battery", stored), true);
  assert.equal(await hasher.verify("correct horse batterY", stored), false);
  assert.equal(await hasher.verify("x", "not a hash"), false);
});

Deno.test("past the running and waiting hashes, a hash is refused at once with rate_limited", async () => {
  const hasher = scryptHasher(CHEAP, { concurrent: 2, waiting: 3 });
  const results = await Promise.allSettled(
    Array.from({ length: 10 }, (_, i) => hasher.hash(`password ${i}`)),
  );
  const done = results.filter((r) => r.status === "fulfilled");
  const refused = results.flatMap((r) => r.status === "rejected" ? [r.reason] : []);
  assert.equal(done.length, 5);
  assert.equal(refused.length, 5);
  for (const error of refused) {
    assert.ok(error instanceof DomainError);
    assert.equal(error.code, "rate_limited");
  }
  // The queue drained: the next hash runs.
  assert.match(await hasher.hash("later"), /^scrypt\$/);
});
