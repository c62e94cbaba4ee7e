// Pages that follow the project stream (the board, a thread, notes, calendar, milestones,
// files); each works without this file. The part of the page marked `data-live-region`
// names the events it follows (`data-live-events`). On one of them it is re-rendered from
// the page's own URL (the same markup), unless the person has typed something in it or
// opened one of its forms: then a quiet "updated — show" notice appears instead, and the
// re-render waits for its button. The browser reconnects by itself and sends Last-Event-ID;
// a stream opened anew catches up by re-rendering once.

const first = document.querySelector("[data-live-region]");
if (first instanceof HTMLElement) follow(first);

/** @param {HTMLElement} region */
function follow(region) {
  const projectId = region.dataset.project ?? "";
  const names = (region.dataset.liveEvents ?? "").split(" ").filter(Boolean);
  /** @type {string | null} */
  let lastEventId = null;
  /** @type {EventSource | null} */
  let source = null;
  let retry = 0;
  let opened = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let soon;
  /** @type {Promise<void> | null} */
  let loading = null;
  let again = false;

  const TEXT = /^(text|search|email|url|tel|number|password|date|datetime-local|time)$/;

  /** Whether a re-render would lose what the person is doing here. */
  function busy() {
    for (const field of region.querySelectorAll("input, textarea, select")) {
      if (field instanceof HTMLTextAreaElement) {
        if (field.value !== field.defaultValue || field === document.activeElement) return true;
      } else if (field instanceof HTMLInputElement) {
        if (field.type === "checkbox" || field.type === "radio") {
          if (field.checked !== field.defaultChecked) return true;
        } else if (field.type === "file") {
          if (field.value !== "") return true;
        } else if (TEXT.test(field.type)) {
          if (field.value !== field.defaultValue || field === document.activeElement) return true;
        }
      } else if (field instanceof HTMLSelectElement) {
        if ([...field.options].some((o) => o.selected !== o.defaultSelected)) return true;
      }
    }
    // An edit or new-item form the person opened.
    return [...region.querySelectorAll("details[open]")].some((d) => d.querySelector("form"));
  }

  function notice(/** @type {boolean} */ shown) {
    const el = region.querySelector("[data-live-notice]");
    if (el instanceof HTMLElement) el.hidden = !shown;
  }

  async function load() {
    const res = await fetch(location.href, { headers: { accept: "text/html" } });
    if (!res.ok) return;
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    const next = doc.querySelector("[data-live-region]");
    if (!(next instanceof HTMLElement)) return;
    region.innerHTML = next.innerHTML;
    notice(false);
    const version = Number(document.body.dataset.liveVersion ?? 0) + 1;
    document.body.dataset.liveVersion = String(version);
  }

  /** Re-renders; calls made meanwhile run once afterwards. */
  function refresh() {
    if (loading) {
      again = true;
      return loading;
    }
    loading = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again);
      } catch {
        // The next event tries again.
      } finally {
        loading = null;
      }
    })();
    return loading;
  }

  function changed() {
    clearTimeout(soon);
    soon = setTimeout(() => {
      if (busy()) notice(true);
      else void refresh();
    }, 150);
  }

  document.addEventListener("click", (event) => {
    const target = event.target;
    if (target instanceof Element && target.closest("[data-live-show]")) void refresh();
  });

  function connect() {
    const query = lastEventId === null ? "" : `?lastEventId=${encodeURIComponent(lastEventId)}`;
    const stream = new EventSource(
      `/api/projects/${encodeURIComponent(projectId)}/chat/stream${query}`,
    );
    source = stream;
    stream.addEventListener("open", () => {
      retry = 0;
      document.body.dataset.stream = "open";
      // Nothing is replayed without an event id: a stream opened anew catches up.
      if (opened && lastEventId === null) changed();
      opened = true;
    });
    const onEvent = (/** @type {Event} */ event) => {
      const message = /** @type {MessageEvent} */ (event);
      if (message.lastEventId) lastEventId = message.lastEventId;
      changed();
    };
    for (const name of names) stream.addEventListener(name, onEvent);
    stream.addEventListener("error", () => {
      if (source !== stream) return;
      document.body.dataset.stream = "closed";
      if (stream.readyState === EventSource.CLOSED) {
        source = null;
        setTimeout(() => {
          if (!source) connect();
        }, Math.min(30_000, 2_000 * 2 ** retry++));
      }
    });
  }

  connect();
  addEventListener("pagehide", () => {
    source?.close();
    source = null;
  });
  addEventListener("pageshow", (event) => {
    if (event.persisted && !source) connect();
  });
}
