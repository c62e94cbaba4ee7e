// The kanban board's enhancements; every card's buttons work without this file.
// - Drag and drop within and between columns, by pointer events (mouse, pen and touch; HTML5
//   drag events never come from a finger); a drop moves the card with
//   POST /api/projects/{id}/todos/items/{itemId}/move to the place of the card it lands before
//   (or after), by their orderIndex: a column may be loaded in part, so its whole order (what
//   /items/reorder takes) is not known here.
// - "Show more" under a column loads its next page of cards (after the column's cursor) and
//   adds them; a re-render keeps as many of each column as are loaded.
// - The move (← → ↑ ↓) and complete buttons call the JSON API instead of reloading, and
//   keep the keyboard focus on the same button of the same card; each shows its name as a
//   tooltip (the page names them by aria-labelledby, from words said once per board).
// - Each card gets its drag handle here: only this file can drag.
// - Live: a to-do, column or milestone event (or a restore) on the project stream
//   re-renders the board from the server's fragment (`?fragment=1`, the same markup as the
//   page).

const BOARD = "[data-kanban-board]";
const first = document.querySelector(BOARD);
if (first instanceof HTMLElement) enhance(first);

/** @param {HTMLElement} initial */
function enhance(initial) {
  let board = initial;
  const projectId = Number(board.dataset.project);
  // The to-do, column, milestone and restore events (the page names them).
  const LIVE_EVENTS = (board.dataset.liveEvents ?? "todo.updated").split(" ").filter(Boolean);
  const canWrite = board.dataset.canWrite === "true";
  const page = `/projects/${projectId}/todos`;
  const api = `/api/projects/${projectId}/todos`;
  const alert = document.querySelector("[data-kanban-status]");
  /** @type {HTMLElement | null} */
  let dragging = null;
  let justDragged = false;
  /** @type {Promise<void> | null} */
  let refreshing = null;
  let again = false;
  let stale = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let soon;

  // ---- re-rendering -----------------------------------------------------------------

  /** Gives each card of `root` that has none its drag handle (writers only). */
  function addHandles(/** @type {Element} */ root) {
    if (!canWrite) return;
    const title = board.dataset.dragTitle ?? "";
    for (const head of root.querySelectorAll("[data-item] > .card-head")) {
      if (head.querySelector("[data-drag-handle]")) continue;
      // Where a finger starts a drag; the move buttons do the same for the keyboard and
      // screen readers, so it is hidden from them.
      const handle = document.createElement("span");
      handle.className = "drag-handle";
      handle.setAttribute("data-drag-handle", "");
      handle.setAttribute("aria-hidden", "true");
      handle.title = title;
      handle.textContent = "⠿";
      head.append(handle);
    }
  }

  addHandles(board);

  /** The text of a control's name from its aria-labelledby (the words and the title). */
  function labelOf(/** @type {Element} */ el) {
    return (el.getAttribute("aria-labelledby") ?? "").split(" ")
      .map((id) => document.getElementById(id)?.textContent?.trim() ?? "")
      .filter(Boolean).join(" ");
  }

  // A card's control shows its name when pointed at, as a title would.
  document.addEventListener("pointerover", (event) => {
    const el = event.target instanceof Element
      ? event.target.closest("button[aria-labelledby]")
      : null;
    if (el instanceof HTMLElement && !el.title && board.contains(el)) el.title = labelOf(el);
  });

  /** Where the focus is on the board, to put it back after a re-render. */
  function focusKey() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !board.contains(active)) return null;
    const card = active.closest("[data-item]");
    if (!(card instanceof HTMLElement)) return null;
    // A move button by the words after the title in its name (`w-left`, `w-up`, ...).
    const words = active.closest(".card-moves")
      ? active.getAttribute("aria-labelledby")?.split(" ").at(-1)
      : undefined;
    const control = words
      ? `[aria-labelledby$=" ${words}"]`
      : active.matches(".card-toggle button")
      ? ".card-toggle button"
      : ".card-title";
    return { item: card.dataset.item, control };
  }

  /** @param {{ item: string | undefined; control: string } | null} key */
  function restoreFocus(key) {
    if (!key?.item) return;
    const card = board.querySelector(`[data-item="${CSS.escape(key.item)}"]`);
    if (!card) return;
    const wanted = card.querySelector(key.control);
    const target = wanted instanceof HTMLButtonElement && wanted.disabled
      ? card.querySelector(".card-moves button:not([disabled])") ??
        card.querySelector(".card-title")
      : wanted ?? card.querySelector(".card-title");
    if (target instanceof HTMLElement) target.focus();
  }

  /** `show=<columnId>.<count>` for each column, so a re-render keeps what "Show more" added. */
  function shown() {
    const parts = [...board.querySelectorAll("[data-column-items]")].map((list) =>
      `${list.getAttribute("data-column-items")}.${
        list.querySelectorAll(":scope > [data-item]").length
      }`
    );
    return parts.length ? `&show=${parts.join(",")}` : "";
  }

  async function fetchBoard(/** @type {ReturnType<typeof focusKey>} */ key) {
    const asked = shown();
    const res = await fetch(`${page}?fragment=1${asked}`, { headers: { accept: "text/html" } });
    if (!res.ok) return;
    const template = document.createElement("template");
    template.innerHTML = await res.text();
    const next = template.content.querySelector(BOARD);
    if (!(next instanceof HTMLElement)) return;
    // "Show more" added cards while this was on its way: ask again for as many as are shown
    // now, rather than showing fewer for a moment.
    if (shown() !== asked) {
      again = true;
      return;
    }
    addHandles(next);
    if (dragging) {
      stale = true;
      return;
    }
    const focus = key ?? focusKey();
    if (next.innerHTML !== board.innerHTML) {
      board.replaceWith(next);
      board = next;
    }
    restoreFocus(focus);
    board.dataset.version = String(Number(document.body.dataset.kanbanVersion ?? 0) + 1);
    document.body.dataset.kanbanVersion = board.dataset.version;
  }

  /** Re-renders the board from the server; calls made meanwhile run once afterwards. */
  function refresh(/** @type {ReturnType<typeof focusKey>} */ key = null) {
    if (dragging) {
      stale = true;
      return Promise.resolve();
    }
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = (async () => {
      try {
        do {
          again = false;
          await fetchBoard(key);
          key = null;
        } while (again);
      } catch {
        // The next event or action tries again.
      } finally {
        refreshing = null;
      }
    })();
    return refreshing;
  }

  function refreshSoon() {
    clearTimeout(soon);
    soon = setTimeout(() => void refresh(), 80);
  }

  function failed() {
    if (alert instanceof HTMLElement) alert.hidden = false;
    void refresh();
  }

  /** Posts JSON to the API; resolves to whether it was accepted. */
  async function post(/** @type {string} */ path, /** @type {unknown} */ body) {
    try {
      const res = await fetch(`${api}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body ?? {}),
      });
      await res.body?.cancel();
      return res.ok;
    } catch {
      return false;
    }
  }

  // ---- buttons ----------------------------------------------------------------------

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || event.defaultPrevented || !board.contains(form)) {
      return;
    }
    const card = form.closest("[data-item]");
    if (!(card instanceof HTMLElement)) return;
    const itemId = Number(card.dataset.item);
    const key = focusKey() ?? { item: card.dataset.item, control: ".card-title" };
    if (form.classList.contains("card-moves")) {
      event.preventDefault();
      // The button pressed says where: `<columnId>.<orderIndex>`.
      const button = event.submitter;
      const to = /^(\d+)\.(\d+)$/.exec(button instanceof HTMLButtonElement ? button.value : "");
      if (!to) return;
      const ok = await post(`/items/${itemId}/move`, {
        columnId: Number(to[1]),
        orderIndex: Number(to[2]),
      });
      if (!ok) return failed();
      await refresh(key);
    } else if (form.classList.contains("card-toggle")) {
      event.preventDefault();
      if (!(await post(`/items/${itemId}/toggle-complete`, {}))) return failed();
      await refresh({ item: card.dataset.item, control: ".card-toggle button" });
    }
  });

  // ---- show more -------------------------------------------------------------------

  document.addEventListener("click", async (event) => {
    const link = event.target instanceof Element ? event.target.closest("[data-more-url]") : null;
    if (!(link instanceof HTMLAnchorElement) || !board.contains(link)) return;
    event.preventDefault();
    const columnId = CSS.escape(
      link.closest("[data-kanban-more]")?.getAttribute("data-kanban-more") ?? "",
    );
    // A re-render may replace the board while the page is on its way: the column's list and
    // its "Show more" are looked up again in the board of the moment.
    const listOf = () => board.querySelector(`[data-column-items="${columnId}"]`);
    const first = listOf();
    if (!first) return;
    const count = first.querySelectorAll(":scope > [data-item]").length;
    try {
      const res = await fetch(`${link.dataset.moreUrl}&shown=${count}`, {
        headers: { accept: "text/html" },
      });
      if (!res.ok) return failed();
      const template = document.createElement("template");
      template.innerHTML = await res.text();
      const next = template.content.querySelector("[data-more-page]");
      const list = listOf();
      const more = board.querySelector(`[data-kanban-more="${columnId}"]`);
      if (!next || !list || !more) return;
      const have = new Set(
        [...list.querySelectorAll(":scope > [data-item]")].map((el) =>
          el.getAttribute("data-item")
        ),
      );
      for (const card of next.querySelectorAll("ol > [data-item]")) {
        // A card moved up past the cursor meanwhile may be here already.
        if (!have.has(card.getAttribute("data-item"))) list.append(card);
      }
      addHandles(list);
      const after = next.querySelector("[data-kanban-more]");
      if (after) more.replaceWith(after);
      else more.remove();
      const added = list.querySelectorAll(":scope > [data-item]")[count];
      const title = added?.querySelector(".card-title");
      if (title instanceof HTMLElement) title.focus();
    } catch {
      failed();
    }
  });

  // ---- drag and drop ----------------------------------------------------------------

  /** The list of the column under an event's target. */
  function listAt(/** @type {EventTarget | null} */ target) {
    if (!(target instanceof Element) || !board.contains(target)) return null;
    const column = target.closest("[data-column]");
    return column?.querySelector("[data-column-items]") ?? null;
  }

  /** The card before which a card dropped at `y` goes, or null for the end. */
  function cardAfter(/** @type {Element} */ list, /** @type {number} */ y) {
    for (const card of list.querySelectorAll(":scope > [data-item]")) {
      if (card === dragging) continue;
      const box = card.getBoundingClientRect();
      if (y < box.top + box.height / 2) return card;
    }
    return null;
  }

  function clearTargets() {
    for (const el of board.querySelectorAll(".drop-target")) el.classList.remove("drop-target");
  }

  /**
   * A press that may become a drag: the card, the pointer, where it went down, the element
   * holding the pointer capture and the column the card came from.
   * @type {{ card: HTMLElement; id: number; x: number; y: number; holder: Element; from: number } | null}
   */
  let press = null;

  /** How far (px) a pointer moves before a press becomes a drag, so a tap stays a tap. */
  const SLOP = 6;
  /** How near (px) to the board's or the window's edge a drag scrolls it. */
  const EDGE = 40;

  /** Scrolls the board sideways and the window up or down when a drag nears their edges. */
  function scrollNearEdges(/** @type {number} */ x, /** @type {number} */ y) {
    const box = board.getBoundingClientRect();
    if (x > box.right - EDGE) board.scrollLeft += 12;
    else if (x < box.left + EDGE) board.scrollLeft -= 12;
    if (y > innerHeight - EDGE) scrollBy(0, 12);
    else if (y < EDGE) scrollBy(0, -12);
  }

  /** Moves the dragged card to where the pointer is, when that is over a column. */
  function follow(/** @type {number} */ x, /** @type {number} */ y) {
    if (!dragging) return null;
    const list = listAt(document.elementFromPoint(x, y));
    if (!list) {
      clearTargets();
      return null;
    }
    const after = cardAfter(list, y);
    if (after !== dragging.nextElementSibling || dragging.parentElement !== list) {
      list.insertBefore(dragging, after);
    }
    if (!list.classList.contains("drop-target")) {
      clearTargets();
      list.classList.add("drop-target");
    }
    return list;
  }

  if (canWrite) {
    // Pointer events serve mouse, pen and touch alike. A finger or pen starts a drag on the
    // card's handle only (it alone has touch-action: none), so the board scrolls as usual
    // elsewhere; a mouse may take the card anywhere but on its links and buttons.
    document.addEventListener("pointerdown", (event) => {
      if (press || dragging || !event.isPrimary || event.button !== 0) return;
      const target = event.target instanceof Element ? event.target : null;
      const card = target?.closest("[data-item]");
      if (!target || !(card instanceof HTMLElement) || !board.contains(card)) return;
      const handle = target.closest("[data-drag-handle]");
      if (!handle) {
        if (event.pointerType !== "mouse") return;
        if (target.closest("a, button, input, select, textarea, summary, label")) return;
      }
      const holder = handle ?? card;
      holder.setPointerCapture(event.pointerId);
      const from = Number(card.parentElement?.getAttribute("data-column-items"));
      press = { card, id: event.pointerId, x: event.clientX, y: event.clientY, holder, from };
      // No text selection while a mouse drags.
      if (event.pointerType === "mouse") event.preventDefault();
    });

    document.addEventListener("pointermove", (event) => {
      if (!press || event.pointerId !== press.id) return;
      if (!dragging) {
        if (Math.hypot(event.clientX - press.x, event.clientY - press.y) < SLOP) return;
        dragging = press.card;
        dragging.classList.add("dragging");
      }
      event.preventDefault();
      scrollNearEdges(event.clientX, event.clientY);
      follow(event.clientX, event.clientY);
    });

    document.addEventListener("pointerup", async (event) => {
      if (!press || event.pointerId !== press.id) return;
      const from = press.from;
      press = null;
      const card = dragging;
      if (!card) return;
      const list = follow(event.clientX, event.clientY);
      finishDrag();
      // Let go outside every column: put everything back as the server has it.
      if (!list) return void refresh();
      const columnId = Number(list.getAttribute("data-column-items"));
      const ok = await post(`/items/${card.dataset.item}/move`, {
        columnId,
        orderIndex: dropIndex(card, list, from),
      });
      if (!ok) return failed();
      await refresh({ item: card.dataset.item, control: ".card-title" });
    });

    document.addEventListener("pointercancel", (event) => {
      if (!press || event.pointerId !== press.id) return;
      press = null;
      if (!dragging) return;
      finishDrag();
      void refresh();
    });

    // A drag that ends on a card's title is not a click on it.
    document.addEventListener("click", (event) => {
      if (!justDragged) return;
      justDragged = false;
      event.preventDefault();
      event.stopPropagation();
    }, true);
  }

  /**
   * The orderIndex a card dropped in `list` goes to: that of the card now after it (or one
   * past the card now before it), less one when the card came from above it in the same
   * column (its leaving moves those up one; `from`: the column it came from). The Done column
   * is drawn newest-completed first, not in that order: a card dropped there goes last.
   */
  function dropIndex(
    /** @type {HTMLElement} */ card,
    /** @type {Element} */ list,
    /** @type {number} */ from,
  ) {
    const column = list.closest("[data-column]");
    if (list.getAttribute("data-order") === "completed") {
      return Number(column?.getAttribute("data-total") ?? 0);
    }
    const was = Number(card.dataset.orderIndex);
    const same = from === Number(list.getAttribute("data-column-items"));
    const next = card.nextElementSibling;
    const prev = card.previousElementSibling;
    const at = (/** @type {Element} */ el) => Number(el.getAttribute("data-order-index"));
    if (next instanceof HTMLElement && next.dataset.item) {
      return same && was < at(next) ? at(next) - 1 : at(next);
    }
    if (prev instanceof HTMLElement && prev.dataset.item) {
      return same && was < at(prev) ? at(prev) : at(prev) + 1;
    }
    return 0;
  }

  function finishDrag() {
    if (dragging) justDragged = true;
    // The click that follows a drag, if any, comes at once; later clicks are clicks.
    setTimeout(() => (justDragged = false), 0);
    dragging?.classList.remove("dragging");
    dragging = null;
    clearTargets();
    if (stale) {
      stale = false;
      refreshSoon();
    }
  }

  // ---- the live stream --------------------------------------------------------------

  /** @type {string | null} */
  let lastEventId = null;
  /** @type {EventSource | null} */
  let source = null;
  let retry = 0;

  function connect() {
    const query = lastEventId === null ? "" : `?lastEventId=${encodeURIComponent(lastEventId)}`;
    const stream = new EventSource(`/api/projects/${projectId}/chat/stream${query}`);
    source = stream;
    stream.addEventListener("open", () => {
      retry = 0;
      document.body.dataset.stream = "open";
      // Nothing is replayed without an event id: catch up with what changed meanwhile.
      if (lastEventId === null) refreshSoon();
    });
    const onEvent = (/** @type {Event} */ event) => {
      const message = /** @type {MessageEvent} */ (event);
      if (message.lastEventId) lastEventId = message.lastEventId;
      refreshSoon();
    };
    for (const name of LIVE_EVENTS) stream.addEventListener(name, onEvent);
    stream.addEventListener("error", () => {
      if (source !== stream) return;
      document.body.dataset.stream = "closed";
      if (stream.readyState === EventSource.CLOSED) {
        source = null;
        setTimeout(connect, Math.min(30_000, 2_000 * 2 ** retry++));
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
