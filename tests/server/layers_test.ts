/**
 * The shape of the code, checked from its imports: layers import one way (`main.ts → routes/
 * → soap/ → domain/ → db/`), nothing imports in a circle, and the pages share helpers only
 * through their kit.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";

const ROOT = normalize(join(import.meta.dirname!, "..", ".."));
const CODE = ["main.ts", "server", "cli", "routes", "soap", "domain", "db"];

/** Every module of the application (not tests, benches or static files), by path from the root. */
async function modules(): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  async function walk(path: string): Promise<void> {
    const info = await Deno.stat(join(ROOT, path));
    if (info.isDirectory) {
      for await (const entry of Deno.readDir(join(ROOT, path))) await walk(join(path, entry.name));
    } else if (/\.tsx?$/.test(path)) {
      found.set(path, await Deno.readTextFile(join(ROOT, path)));
    }
  }
  for (const path of CODE) await walk(path);
  return found;
}

/** The modules of the application each module imports (or re-exports from). */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const [path, text] of await modules()) {
    const targets: string[] = [];
    for (const match of text.matchAll(/^\s*(?:import|export)\b[^"';]*?from\s+"(\.[^"]+)"/gm)) {
      targets.push(normalize(join(dirname(path), match[1]!)));
    }
    graph.set(path, targets);
  }
  return graph;
}

/** main.ts and the isolates it starts (server/, `WORKERS`) are the top layer. */
const layerOf = (path: string) =>
  path === "main.ts" || path.startsWith("server/") ? "main.ts" : path.split("/")[0]!;

Deno.test("nothing under routes/ or soap/ imports from db/", async () => {
  const offending = [...await importGraph()].flatMap(([from, targets]) =>
    ["routes", "soap"].includes(layerOf(from))
      ? targets.filter((to) => layerOf(to) === "db").map((to) => `${from} → ${to}`)
      : []
  );
  assert.deepEqual(offending, []);
});

Deno.test("layers import one way: main.ts → routes/ → soap/ → domain/ → db/, and main.ts → cli/ → domain/", async () => {
  // The command-line tools (backup, restore) sit beside the HTTP side: neither imports the other.
  const rank: Record<string, number> = {
    "main.ts": 0,
    cli: 1,
    routes: 1,
    soap: 2,
    domain: 3,
    db: 4,
  };
  const offending = [...await importGraph()].flatMap(([from, targets]) =>
    targets.filter((to) => {
      const [a, b] = [layerOf(from), layerOf(to)];
      if (a === "cli" && (b === "routes" || b === "soap")) return true;
      if (b === "cli" && a !== "main.ts" && a !== "cli") return true;
      return (rank[b] ?? -1) < (rank[a] ?? -1);
    }).map((to) => `${from} → ${to}`)
  );
  assert.deepEqual(offending, []);
});

Deno.test("no module imports itself through others (no import circles)", async () => {
  const graph = await importGraph();
  const circles: string[] = [];
  const state = new Map<string, "open" | "done">();
  const visit = (path: string, trail: string[]) => {
    if (state.get(path) === "done") return;
    if (state.get(path) === "open") {
      circles.push([...trail.slice(trail.indexOf(path)), path].join(" → "));
      return;
    }
    state.set(path, "open");
    for (const to of graph.get(path) ?? []) visit(to, [...trail, path]);
    state.set(path, "done");
  };
  for (const path of [...graph.keys()].sort()) visit(path, []);
  assert.deepEqual(circles, []);
});

Deno.test("pages share helpers only through routes/pages/kit/, and no page imports another", async () => {
  const graph = await importGraph();
  const dir = join("routes", "pages");
  // Shared by every page: the kit, and the request's page context (`context.ts`).
  const shared = (path: string) =>
    path.startsWith(`${dir}/kit/`) || path === join(dir, "context.ts");
  const importers = new Map<string, string[]>();
  for (const [from, targets] of graph) {
    for (const to of targets) importers.set(to, [...importers.get(to) ?? [], from]);
  }
  const offending: string[] = [];
  for (const [path, from] of importers) {
    if (!path.startsWith(`${dir}/`) || shared(path) || path === join(dir, "pages.ts")) continue;
    // A page module (or a view of one page) has one importer: the page application, or its page.
    if (from.length > 1) offending.push(`${path} ← ${from.join(", ")}`);
  }
  for (const [from, targets] of graph) {
    if (!shared(from)) continue;
    for (const to of targets) {
      if (to.startsWith(`${dir}/`) && !shared(to)) offending.push(`${from} → ${to}`);
    }
  }
  assert.deepEqual(offending, []);
});

/**
 * The capability folders of domain/ and db/, lowest first (docs/architecture.md): a folder
 * imports only the folders before it. The top-level files of domain/ (config, services) wire
 * every folder together and are not ranked; db/'s capability folders import db/kernel/ only,
 * besides the engines' own folders, with the exception listed.
 */
const DOMAIN_FOLDERS = [
  "kernel",
  "formats",
  "accounts",
  "projects",
  "integrations",
  "mail",
  "identity",
  "content",
  "planning",
  "overview",
  "archives",
  "loan",
];
const DB_FOLDERS = ["kernel", "sqlite", "postgres", ...DOMAIN_FOLDERS.slice(2)];

Deno.test("every module of domain/ and db/ sits in a capability folder, or is one of domain's wiring files", async () => {
  const loose = [...(await modules()).keys()].filter((path) => {
    const parts = path.split("/");
    if (parts[0] !== "domain" && parts[0] !== "db") return false;
    if (parts.length === 2) return !["domain/config.ts", "domain/services.ts"].includes(path);
    const folders = parts[0] === "domain" ? DOMAIN_FOLDERS : DB_FOLDERS;
    return !folders.includes(parts[1]!);
  });
  assert.deepEqual(loose, []);
});

Deno.test("capability folders import one way: a folder of domain/ or db/ imports only the folders before it", async () => {
  const offending: string[] = [];
  for (const [from, targets] of await importGraph()) {
    const [layer, folder] = from.split("/");
    if ((layer !== "domain" && layer !== "db") || from.split("/").length !== 3) continue;
    const order = layer === "domain" ? DOMAIN_FOLDERS : DB_FOLDERS;
    for (const to of targets) {
      const [toLayer, toFolder] = to.split("/");
      if (toLayer !== layer || to.split("/").length !== 3 || toFolder === folder) continue;
      if (order.indexOf(toFolder!) >= order.indexOf(folder!)) offending.push(`${from} → ${to}`);
      // db/: a table folder imports the engine's kernel, and only an earlier table folder
      // where it reuses rows (overview → planning: the to-do row; mail → projects: the
      // notification row it mails).
      const reuses = (folder === "overview" && toFolder === "planning") ||
        (folder === "mail" && toFolder === "projects");
      if (layer === "db" && order.indexOf(folder!) > 2 && toFolder !== "kernel" && !reuses) {
        offending.push(`${from} → ${to}`);
      }
    }
  }
  assert.deepEqual(offending, []);
});
