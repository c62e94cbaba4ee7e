/** Login throttling: reservations for attempts in flight, and a full table keeps its locks. */
import assert from "node:assert/strict";
import { FixedClock } from "../../domain/clock.ts";
import { DomainError } from "../../domain/errors.ts";
import { LoginThrottle, RegistrationThrottle } from "../../domain/throttle.ts";

const isRateLimited = (error: unknown) =>
  error instanceof DomainError && error.code === "rate_limited";

Deno.test("attempts in flight count against the limit; ending them frees or spends the allowance", () => {
  const throttle = new LoginThrottle(new FixedClock("2026-11-23T00:00:00Z"));
  const attempts = Array.from({ length: 5 }, () => throttle.begin("ada@example.com", "a"));
  assert.throws(() => throttle.begin("ada@example.com", "b"), isRateLimited);
  attempts[0]!.succeeded(); // a success clears the failures, not the other reservations
  const sixth = throttle.begin("ada@example.com", "b");
  for (const attempt of [...attempts.slice(1), sixth]) attempt.failed();
  // Five failures: locked, whatever the address.
  assert.throws(() => throttle.begin("ada@example.com", "c"), isRateLimited);
  // Ending an attempt twice changes nothing: a late `succeeded()` does not lift the lock.
  sixth.failed();
  sixth.succeeded();
  assert.throws(() => throttle.begin("ada@example.com", "c"), isRateLimited);
});

Deno.test("an abandoned attempt (the hasher was busy) frees its place and counts as no failure", () => {
  const throttle = new LoginThrottle(new FixedClock("2026-11-23T00:00:00Z"));
  for (let round = 0; round < 10; round++) {
    const attempts = Array.from({ length: 5 }, () => throttle.begin("ada@example.com", "a"));
    for (const attempt of attempts) attempt.abandoned();
  }
  // Fifty abandoned attempts later, the account has its whole allowance.
  const five = Array.from({ length: 5 }, () => throttle.begin("ada@example.com", "a"));
  assert.throws(() => throttle.begin("ada@example.com", "a"), isRateLimited);
  for (const attempt of five) attempt.succeeded();
  throttle.begin("ada@example.com", "a").succeeded();
});

Deno.test("a full table makes room from expired and unlocked keys, never from a locked account first", () => {
  const clock = new FixedClock("2026-11-23T00:00:00Z");
  const throttle = new LoginThrottle(clock);
  for (let i = 0; i < 5; i++) throttle.begin("victim@example.com", `10.0.0.${i}`).failed();
  assert.throws(() => throttle.begin("victim@example.com", "10.9.9.9"), isRateLimited);
  // 120,000 other emails fail once each, from addresses that stay under their own limit.
  for (let i = 0; i < 120_000; i++) {
    throttle.begin(`user${i}@example.com`, `addr${i % 10_000}`).failed();
    if (i % 10_000 === 9_999) clock.advance(1_000);
  }
  assert.throws(() => throttle.begin("victim@example.com", "10.9.9.9"), isRateLimited);
});

Deno.test("registrations: a limit per address within a sliding hour; addresses are counted apart", () => {
  const clock = new FixedClock("2026-11-23T00:00:00Z");
  const throttle = new RegistrationThrottle(clock, 2);
  throttle.begin("a").accepted();
  clock.advance(60_000);
  throttle.begin("a").accepted();
  assert.throws(() => throttle.begin("a"), (error: unknown) => {
    assert.ok(isRateLimited(error));
    assert.equal((error as DomainError).retryAfter, 3600 - 60);
    return true;
  });
  throttle.begin("b").accepted();
  clock.advance(3600_000 - 60_000);
  throttle.begin("a").accepted();
  assert.throws(() => throttle.begin("a"), isRateLimited);
});

Deno.test("registrations in flight hold a place; abandoned ones give it back and count nothing", () => {
  const throttle = new RegistrationThrottle(new FixedClock("2026-11-23T00:00:00Z"), 2);
  const first = throttle.begin("a");
  const second = throttle.begin("a");
  assert.throws(() => throttle.begin("a"), isRateLimited);
  first.abandoned();
  first.accepted(); // ending twice changes nothing
  const third = throttle.begin("a");
  second.accepted();
  third.accepted();
  assert.throws(() => throttle.begin("a"), isRateLimited);
});
