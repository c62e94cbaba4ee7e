/**
 * Writes the OpenAPI document to the file named by the first argument, for the linter in
 * `.ci/run`: the app is built in process over a temporary database (no server, no network)
 * and asked for `/api/openapi.json` as a deployment at `https://collab.test` would be.
 */
import { testApp } from "../tests/helpers/app.ts";

const [out] = Deno.args;
if (!out) throw new Error("Cannot write the document: name the output file");
const t = await testApp({ env: { BASE_URL: "https://collab.test" } });
try {
  const res = await t.app.request("/api/openapi.json");
  if (res.status !== 200) throw new Error(`Cannot read the document: status ${res.status}`);
  await Deno.writeTextFile(out, JSON.stringify(await res.json(), null, 2) + "\n");
} finally {
  await t.close();
}
