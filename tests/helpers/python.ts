/**
 * Tests that check our output with an independent Python library from Debian (python3-zeep,
 * python3-icalendar): whether the module is there, and running a script with it. Outside CI a
 * missing module skips those tests loudly; in CI (CI=true) it is a failure.
 */
import assert from "node:assert/strict";
import { basename } from "node:path";

/** Debian's python3, whose packaged modules the tests use. */
export const PYTHON = "/usr/bin/python3";

const inCi = Deno.env.get("CI") === "true";

/** A Python module the tests need, as `pythonModule` found it. */
export interface PythonModule {
  /** For `Deno.test`: true only outside CI when the module is missing. */
  ignore: boolean;
  /** Fails the test when the module is missing (that is, in CI). */
  require(): void;
}

async function importable(module: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(PYTHON, {
      args: ["-c", `import ${module}`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false; // no python3 at all
  }
}

/**
 * Looks for Debian's python3-`module`, warning (outside CI) that `skipped` is skipped when it
 * is missing.
 */
export async function pythonModule(module: string, skipped: string): Promise<PythonModule> {
  const available = await importable(module);
  const check = `\`${PYTHON} -c 'import ${module}'\` failed`;
  if (!available && !inCi) {
    console.warn(
      `\n!!! WARNING: python3-${module} is not installed (${check}): ${skipped} is SKIPPED. ` +
        `Install python3-${module}. !!!\n`,
    );
  }
  return {
    ignore: !available && !inCi,
    require() {
      if (!available) {
        assert.fail(
          `python3-${module} is required in CI: ${check} (install Debian's python3-${module})`,
        );
      }
    },
  };
}

/** Runs a Python script with `args`, asserts it exits with 0, and answers its stdout. */
export async function runPython(script: string, args: string[]): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(PYTHON, {
    args: [script, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { PYTHONDONTWRITEBYTECODE: "1" },
  }).output();
  const out = new TextDecoder().decode(stdout);
  const err = new TextDecoder().decode(stderr);
  assert.equal(
    code,
    0,
    `${basename(script)} exited with ${code}\nstdout:\n${out}\nstderr:\n${err}`,
  );
  return out;
}
