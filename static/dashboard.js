// The dashboards' live updates; both pages work without this file.
// - The project dashboard listens to the project stream (EventSource): any event of the
//   project (the page names them in `data-live-events`) re-renders it from the server's
//   fragment (`?fragment=1`, the same markup as the page), debounced; it also re-fetches
//   every 60 s while the page is visible (the "near due" list moves with the day).
// - The personal dashboard spans every project: rather than holding a stream per project
//   (the server allows 10 per user), it re-fetches its fragment every 30 s while the page is
//   visible, and at once when the page becomes visible again. The unread badge in the
//   header follows the fragment's count.

const first = document.querySelector("[data-dashboard]");
if (first instanceof HTMLElement) enhance(first);

/** @param {HTMLElement} initial */
function enhance(initial) {
  let root = initial;
  const kind = root.dataset.dashboard;
  const projectId = root.dataset.project ?? "";
  const url = kind === "project"
    ? `/projects/${encodeURIComponent(projectId)}?fragment=1`
    : "/?fragment=1";
  const POLL_MS = kind === "project" ? 60_000 : 30_000;
  /** @type {Promise<void> | null} */
  let refreshing = null;
  let again = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let soon;

  /** Where the focus is in the dashboard (its section and link), to put it back. */
  function focusKey() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !root.contains(active)) return null;
    const section = active.closest("[data-section]");
    return {
      section: section instanceof HTMLElement ? section.dataset.section ?? "" : "",
      href: active.getAttribute("href") ?? "",
    };
  }

  function restoreFocus(/** @type {{ section: string; href: string } | null} */ key) {
    if (!key) return;
    const section = root.querySelector(`[data-section="${CSS.escape(key.section)}"]`);
    if (!section) return;
    const target =
      [...section.querySelectorAll("a[href]")].find((a) => a.getAttribute("href") === key.href) ??
        section.querySelector("a[href]");
    if (target instanceof HTMLElement) target.focus();
  }

  async function load() {
    const res = await fetch(url, { headers: { accept: "text/html" } });
    if (!res.ok) return;
    const template = document.createElement("template");
    template.innerHTML = await res.text();
    const next = template.content.querySelector("[data-dashboard]");
    if (!(next instanceof HTMLElement)) return;
    const live = root.querySelector("[data-dashboard-live]");
    const nextLive = next.querySelector("[data-dashboard-live]");
    if (live instanceof HTMLElement && nextLive instanceof HTMLElement) {
      nextLive.hidden = live.hidden;
    }
    if (next.innerHTML !== root.innerHTML) {
      const key = focusKey();
      root.replaceWith(next);
      root = next;
      restoreFocus(key);
    }
    updateBadge(root.dataset.unread);
    const version = Number(document.body.dataset.dashboardVersion ?? 0) + 1;
    document.body.dataset.dashboardVersion = String(version);
  }

  /** Re-renders from the server; calls made meanwhile run once afterwards. */
  function refresh() {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          again = false;
          await load();
        } while (again);
      } catch {
        // The next event or poll tries again.
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  function refreshSoon() {
    clearTimeout(soon);
    soon = setTimeout(() => void refresh(), 150);
  }

  /** The header's unread badge, following the personal dashboard's count. */
  function updateBadge(/** @type {string | undefined} */ raw) {
    if (raw === undefined || !/^\d+$/.test(raw)) return;
    const count = Number(raw);
    const link = document.querySelector('nav.main a[href="/notifications"]');
    if (!link) return;
    let badge = link.querySelector("[data-unread]");
    if (count === 0) {
      badge?.remove();
      return;
    }
    if (!badge) {
      badge = document.createElement("span");
      badge.className = "badge";
      badge.setAttribute("data-unread", "");
      link.append(badge);
    }
    badge.textContent = ` ${count}`;
  }

  // ---- polling ----------------------------------------------------------------------

  /** @type {ReturnType<typeof setInterval> | undefined} */
  let poll;
  function startPolling() {
    clearInterval(poll);
    poll = setInterval(() => {
      if (document.visibilityState === "visible") void refresh();
    }, POLL_MS);
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refreshSoon();
  });
  startPolling();

  // ---- the project stream -----------------------------------------------------------

  if (kind !== "project") {
    addEventListener("pageshow", (event) => {
      if (event.persisted) refreshSoon();
    });
    return;
  }

  // Every event of the project (the page names them): any change may show here.
  const EVENTS = (root.dataset.liveEvents ?? "").split(" ").filter(Boolean);
  /** @type {string | null} */
  let lastEventId = null;
  /** @type {EventSource | null} */
  let source = null;
  let retry = 0;

  function setLive(/** @type {boolean} */ online) {
    document.body.dataset.stream = online ? "open" : "closed";
    const note = root.querySelector("[data-dashboard-live]");
    if (note instanceof HTMLElement) note.hidden = !online;
  }

  function connect() {
    const query = lastEventId === null ? "" : `?lastEventId=${encodeURIComponent(lastEventId)}`;
    const stream = new EventSource(
      `/api/projects/${encodeURIComponent(projectId)}/chat/stream${query}`,
    );
    source = stream;
    stream.addEventListener("open", () => {
      retry = 0;
      setLive(true);
      // Nothing is replayed without an event id: catch up with what changed meanwhile.
      if (lastEventId === null) refreshSoon();
    });
    const onEvent = (/** @type {Event} */ event) => {
      const message = /** @type {MessageEvent} */ (event);
      if (message.lastEventId) lastEventId = message.lastEventId;
      refreshSoon();
    };
    for (const name of EVENTS) stream.addEventListener(name, onEvent);
    stream.addEventListener("error", () => {
      if (source !== stream) return;
      setLive(false);
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
    setLive(false);
  });
  addEventListener("pageshow", (event) => {
    if (event.persisted && !source) connect();
  });
}
