/**
 * Does the password-reset answer tell whether an account exists by its time?
 * (`deno run -A bench/reset_timing_bench.ts`; on PostgreSQL:
 * `deno run -A .ci/with_postgres.ts deno run -A bench/reset_timing_bench.ts`.)
 *
 * Builds the app in process (tests/helpers/app.ts: a fresh SQLite file, or a PostgreSQL
 * database of its own) with mail on (BASE_URL and SMTP_URL set; the sender is never started,
 * so a known address's mail is written to the outbox as in production and stays there), and
 * one registered account. Then sends `POST /api/auth/password-reset` BENCH_TRIES times (default
 * 40) for the known address and as many for unknown ones, interleaved (known, unknown, known…)
 * so drift hits both alike, after BENCH_WARMUP (10) unmeasured pairs. The injected clock moves
 * an hour before each request, so no limit is ever reached: every known request really mails.
 *
 * Reports mean, p50 and p95 (milliseconds) of each, the difference of means, and the noise:
 * the spread of the means (the larger standard error times 2). Exits 0 always: it measures,
 * the README records.
 */
import { testApp } from "../tests/helpers/app.ts";
import { api, HOUR, signUp } from "../tests/helpers/api.ts";

const TRIES = Number(Deno.env.get("BENCH_TRIES") ?? 40);
const WARMUP = Number(Deno.env.get("BENCH_WARMUP") ?? 10);

function stats(xs: number[]) {
  const sorted = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
  return { mean, p50: at(0.5), p95: at(0.95), se: sd / Math.sqrt(xs.length) };
}

const t = await testApp({
  env: { BASE_URL: "https://collab.example.org", SMTP_URL: "smtp://127.0.0.1:9" },
});
try {
  await signUp(t, "root@example.com");
  await signUp(t, "known@example.com");
  const known: number[] = [];
  const unknown: number[] = [];
  let n = 0;
  const once = async (email: string): Promise<number> => {
    t.clock.advance(HOUR + 1000);
    const started = performance.now();
    const res = await api(t, "POST", "/api/auth/password-reset", { body: { email } });
    const ms = performance.now() - started;
    if (res.status !== 202) throw new Error(`${email}: ${res.status} ${res.text}`);
    return ms;
  };
  for (let i = 0; i < WARMUP + TRIES; i++) {
    const k = await once("known@example.com");
    const u = await once(`nobody${n++}@example.com`);
    if (i >= WARMUP) {
      known.push(k);
      unknown.push(u);
    }
  }
  const mails = await t.sql.count("mail_outbox WHERE kind = 'password_reset'");
  const a = stats(known);
  const b = stats(unknown);
  const diff = a.mean - b.mean;
  const noise = 2 * Math.max(a.se, b.se);
  const f = (x: number) => x.toFixed(2);
  console.log(`engine: ${t.sql.kind}; ${TRIES} tries each after ${WARMUP} warm-up pairs`);
  console.log(`known   (mail queued): mean ${f(a.mean)} ms, p50 ${f(a.p50)}, p95 ${f(a.p95)}`);
  console.log(`unknown (no mail):     mean ${f(b.mean)} ms, p50 ${f(b.p50)}, p95 ${f(b.p95)}`);
  console.log(
    `difference of means: ${f(diff)} ms; noise (2 standard errors): ${f(noise)} ms; ` +
      (Math.abs(diff) <= noise ? "below the noise" : "ABOVE the noise"),
  );
  console.log(`reset mails queued: ${mails} (expected ${WARMUP + TRIES})`);
} finally {
  await t.close();
}
