// Write and Preview tabs on every Markdown text box (`[data-markdown-box]`, see
// `MarkdownBox` in kit/fields.tsx). Without this file the text area simply works.
// - The preview is rendered by the server (`POST /api/markdown/preview`), with the renderer
//   the page itself uses; on a project's pages mentions name its members.
// - The tabs follow the ARIA tabs pattern: Left/Right (and Home/End) move between them and
//   show the chosen one; only the selected tab is in the Tab order.
// - Sending the form, or the browser finding the text invalid, goes back to Write.
// - Boxes a script adds later (chat messages re-rendered live) get their tabs too.

const API = "/api/markdown/preview";
let counter = 0;

/** The project of the page, whose members mentions name; null outside a project. */
function projectOfPage() {
  const match = location.pathname.match(/^\/projects\/(\d+)(?:\/|$)/);
  return match ? Number(match[1]) : null;
}

/**
 * @param {HTMLElement} box
 */
function enhance(box) {
  const textarea = box.querySelector("textarea");
  if (!(textarea instanceof HTMLTextAreaElement) || box.dataset.enhanced) return;
  box.dataset.enhanced = "true";
  const n = ++counter;
  if (!textarea.id) textarea.id = `md-text-${n}`;
  const words = box.dataset;

  const tabs = document.createElement("div");
  tabs.className = "md-tabs";
  tabs.setAttribute("role", "tablist");
  tabs.setAttribute("aria-label", words.tabs ?? "");
  const panel = document.createElement("div");
  panel.id = `md-preview-${n}`;
  panel.className = "markdown md-preview";
  panel.setAttribute("role", "tabpanel");
  panel.tabIndex = 0;
  panel.hidden = true;
  panel.setAttribute("aria-live", "polite");
  panel.dataset.markdownPreview = "";

  /**
   * @param {string} label
   * @param {string} controls
   */
  const tab = (label, controls) => {
    const button = document.createElement("button");
    button.type = "button";
    button.id = `${controls}-tab`;
    button.setAttribute("role", "tab");
    button.setAttribute("aria-controls", controls);
    button.textContent = label;
    return button;
  };
  const write = tab(words.write ?? "Write", textarea.id);
  const preview = tab(words.preview ?? "Preview", panel.id);
  write.dataset.mdTab = "write";
  preview.dataset.mdTab = "preview";
  panel.setAttribute("aria-labelledby", preview.id);
  tabs.append(write, preview);
  box.prepend(tabs);
  box.append(panel);

  let request = 0;
  /** @param {"write" | "preview"} mode */
  const show = (mode, focus = false) => {
    const previewing = mode === "preview";
    write.setAttribute("aria-selected", String(!previewing));
    preview.setAttribute("aria-selected", String(previewing));
    write.tabIndex = previewing ? -1 : 0;
    preview.tabIndex = previewing ? 0 : -1;
    textarea.hidden = previewing;
    panel.hidden = !previewing;
    if (focus) (previewing ? preview : write).focus();
    if (previewing) render();
  };

  const render = async () => {
    const mine = ++request;
    const text = textarea.value;
    if (!text.trim()) {
      panel.textContent = words.empty ?? "";
      return;
    }
    panel.textContent = words.loading ?? "";
    panel.setAttribute("aria-busy", "true");
    try {
      const res = await fetch(API, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ text, projectId: projectOfPage() }),
      });
      if (!res.ok) throw new Error(String(res.status));
      const body = await res.json();
      // The server's renderer escapes raw HTML and keeps only safe links: this is the markup
      // the page will show once the text is saved.
      if (mine === request) panel.innerHTML = String(body.html);
    } catch {
      if (mine === request) panel.textContent = words.failed ?? "";
    } finally {
      if (mine === request) panel.removeAttribute("aria-busy");
    }
  };

  write.addEventListener("click", () => show("write"));
  preview.addEventListener("click", () => show("preview"));
  tabs.addEventListener("keydown", (event) => {
    const next = { ArrowLeft: "write", ArrowRight: "preview", Home: "write", End: "preview" }[
      event.key
    ];
    if (next !== "write" && next !== "preview") return;
    event.preventDefault();
    show(next, true);
  });
  // A required box left empty must be visible for the browser to point at it.
  textarea.addEventListener("invalid", () => show("write"));
  textarea.form?.addEventListener("submit", () => show("write"));
  show("write");
}

for (const box of document.querySelectorAll("[data-markdown-box]")) {
  if (box instanceof HTMLElement) enhance(box);
}

new MutationObserver((records) => {
  for (const record of records) {
    for (const node of record.addedNodes) {
      if (!(node instanceof HTMLElement)) continue;
      if (node.matches("[data-markdown-box]")) enhance(node);
      for (const box of node.querySelectorAll("[data-markdown-box]")) {
        if (box instanceof HTMLElement) enhance(box);
      }
    }
  }
}).observe(document.body, { childList: true, subtree: true });
